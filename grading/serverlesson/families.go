package serverlesson

import (
	"github.com/mcplab/mcplab/grading"
)

// A family judges a group of derived checks: checks worked out from the
// traffic rather than from the answers a scenario tags. Each derived check
// of a catalogue must belong to a family, and a family runs only for a
// lesson whose catalogue lists one of its checks. The stdio transport
// families (stdout, ids, answers, lifecycle, stderr) serve every stdio
// lesson as they are; framing serves the lessons that cut lines across
// writes. Expected answers and order lines, which every scenario may have,
// are judged for every lesson.
type family struct {
	checks []string // none: the family runs for every lesson
	// scenario weighs one scenario's evidence; grade weighs every
	// scenario's at once. A family has one of the two.
	scenario func(*evidence, *grading.Tally)
	grade    func([]*evidence, *grading.Tally)
}

// families lists the grader's families, in the order they judge.
func families() []family {
	return []family{
		{checks: []string{checkMessagesOnly}, scenario: judgeMessagesOnly},
		{checks: []string{checkSplitMessage, checkManyPerChunk}, scenario: judgeFraming},
		{scenario: judgeExpected},
		{scenario: judgeOrders},
		{scenario: judgeAnswerTests},
		{checks: []string{checkIDsExact}, scenario: judgeIDs},
		{checks: []string{checkAnswersOnce, checkSilent}, scenario: judgeOnce},
		{checks: []string{checkExitOnEOF}, scenario: judgeExit},
		{checks: []string{checkStderrLogs}, grade: judgeStderr},
	}
}

// knownDerived reports whether a family judges the check.
func knownDerived(id string) bool {
	for _, f := range families() {
		for _, c := range f.checks {
			if c == id {
				return true
			}
		}
	}
	return false
}

// judges returns the judges a lesson with these checks needs: those of the
// families its catalogue uses, and those every lesson needs.
func judges(checks []grading.Check) (perScenario []func(*evidence, *grading.Tally), perGrade []func([]*evidence, *grading.Tally)) {
	listed := map[string]bool{}
	for _, c := range checks {
		listed[c.ID] = true
	}
	for _, f := range families() {
		uses := len(f.checks) == 0
		for _, c := range f.checks {
			uses = uses || listed[c]
		}
		switch {
		case !uses:
		case f.scenario != nil:
			perScenario = append(perScenario, f.scenario)
		default:
			perGrade = append(perGrade, f.grade)
		}
	}
	return perScenario, perGrade
}
