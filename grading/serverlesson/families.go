package serverlesson

import (
	"github.com/mcplab/mcplab/grading"
)

// A family judges a group of derived checks: checks worked out from the
// traffic rather than from the answers a scenario tags. It works for one
// or more judges of serverJudges, and runs only for a lesson whose
// catalogue names one of them; it charges each judge's faults to the check
// the catalogue gives that judge (see served). The stdio transport
// families (stdout, ids, answers, lifecycle, stderr) serve every stdio
// lesson as they are; framing serves the lessons that cut lines across
// writes. Expected answers and order lines, which every scenario may have,
// are judged for every lesson.
type family struct {
	judges []string // by name; none: the family runs for every lesson
	// scenario weighs one scenario's evidence; grade weighs every
	// scenario's at once. A family has one of the two.
	scenario func(*evidence, *grading.Tally)
	grade    func(served, []*evidence, *grading.Tally)
}

// families lists the grader's families, in the order they judge.
func families() []family {
	return []family{
		{judges: []string{judgeNameMessagesOnly}, scenario: judgeMessagesOnly},
		{judges: []string{judgeNameSplitMessage, judgeNameManyPerChunk}, scenario: judgeFraming},
		{scenario: judgeExpected},
		{scenario: judgeOrders},
		{scenario: judgeAnswerTests},
		{judges: []string{judgeNameIDsExact}, scenario: judgeIDs},
		{judges: []string{judgeNameAnswersOnce, judgeNameSilent}, scenario: judgeOnce},
		{judges: []string{judgeNameExitOnEOF}, scenario: judgeExit},
		{judges: []string{judgeNameStderrLogs}, grade: judgeStderr},
	}
}

// judges returns the judges a lesson with these checks needs: those of the
// families its catalogue uses, and those every lesson needs.
func judges(checks []grading.Check) (perScenario []func(*evidence, *grading.Tally), perGrade []func([]*evidence, *grading.Tally)) {
	ids := servedBy(checks)
	for _, f := range families() {
		uses := len(f.judges) == 0
		for _, j := range f.judges {
			uses = uses || grading.Served(checks, j) != ""
		}
		switch {
		case !uses:
		case f.scenario != nil:
			perScenario = append(perScenario, f.scenario)
		default:
			grade := f.grade
			perGrade = append(perGrade, func(runs []*evidence, t *grading.Tally) { grade(ids, runs, t) })
		}
	}
	return perScenario, perGrade
}
