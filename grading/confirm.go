package grading

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ConfirmScale is how much larger the time scale of the rerun that
// confirms a deadline failure is than the first run's. The lab's deadlines
// are already many times what a correct program needs on a machine at
// normal speed; a machine so loaded that it misses them still runs the
// program at some fraction of that speed, and four times every deadline
// covers a machine a quarter as fast as the first run assumed (a CI runner
// shared with three other jobs) while keeping the cost of confirming a
// program that truly hangs bounded: one more run, of at most four times
// the first run's deadlines.
const ConfirmScale = 4

// Confirmation records that failures resting on deadlines were graded
// again before they were charged.
type Confirmation struct {
	// Scale is the time scale of the rerun: the first run's times
	// ConfirmScale.
	Scale float64 `json:"scale"`
	// Rerun lists the checks whose failure rested on deadlines and was
	// judged again, in check order; Cleared those of them that passed (or
	// could not be judged) in the rerun, so they were not charged.
	Rerun   []string `json:"rerun,omitempty"`
	Cleared []string `json:"cleared,omitempty"`
	// Judged lists the checks the first run could not judge and the rerun
	// did: they have the rerun's verdict (see judgeSkipped).
	Judged []string `json:"judged,omitempty"`
	// Timeout is set when the first run as a whole timed out and the
	// rerun's result was kept.
	Timeout bool `json:"timeout,omitempty"`
}

// NeedsConfirming reports whether res has a verdict that rests on deadlines
// alone: a run that timed out as a whole, a failed check every piece of
// evidence against which is a wait that ran out, or a check left unjudged
// only because a deadline cut its evidence short.
func NeedsConfirming(res *Result) bool {
	return res != nil && (res.Outcome.Kind == OutcomeTimeout || len(deadlineFailures(res)) > 0 || deadlineSkips(res))
}

// deadlineSkips reports whether res has a check left unjudged only because
// a deadline cut its evidence short (CheckResult.Deadline on a skip).
func deadlineSkips(res *Result) bool {
	return slices.ContainsFunc(res.Checks, func(c CheckResult) bool { return c.Status == StatusSkip && c.Deadline })
}

// deadlineFailures lists the ids of the failed checks of res whose failure
// rests on deadlines alone.
func deadlineFailures(res *Result) []string {
	var ids []string
	for _, c := range res.Checks {
		if c.Status == StatusFail && c.Deadline {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// Confirm grades lesson again when first has a verdict that rests on
// deadlines alone (see NeedsConfirming), with every deadline ConfirmScale
// times longer, so that a slow machine never costs a student a point: each
// check whose failure rested on deadlines is charged only when it fails
// again, and every other check keeps its first verdict. A first run that
// timed out as a whole is replaced by the rerun when that did not time out
// and did not fail again every check that had failed on a deadline (so it
// played every scenario); else each check is confirmed as above and the
// timeout stands. There is at most one rerun, so a program that
// truly hangs still fails, at the cost of one run at most; the score is
// worked out again, and Result.Confirmed and the outcome's detail say what
// was confirmed. A first result with nothing to confirm is returned as it
// is, with no rerun.
//
// The rerun plays first the scenario each deadline failure was first seen
// in, and stops as soon as every one of those checks has failed again
// (Options.First, Options.StopOnceFailed): a program that hangs again is
// charged after the scenarios that show it, not after every deadline of
// the lesson has run out once more at four times its length. A check is
// cleared only by a rerun that played every scenario, so none of its
// evidence is left unplayed.
func Confirm(ctx context.Context, lesson Lesson, opts Options, first *Result) (*Result, error) {
	if !NeedsConfirming(first) {
		return first, nil
	}
	scale := opts.TimeScale
	if scale <= 0 {
		scale = 1
	}
	opts.TimeScale = scale * ConfirmScale
	rerun := deadlineFailures(first)
	opts.First = firstScenarios(first, rerun)
	opts.StopOnceFailed = rerun
	opts.StopOnceUnread = seenOnlyUnread(first, rerun)
	second, err := lesson.Grade(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("confirming the deadline failures at time scale %g: %w", opts.TimeScale, err)
	}
	// unread is the scenario of the rerun the program again read none of,
	// when that confirms every failure (see seenOnlyUnread).
	var unread string
	if opts.StopOnceUnread && len(second.Unread) > 0 {
		unread = second.Unread[0]
	}
	total := first.DurationMS + second.DurationMS
	var res *Result
	if first.Outcome.Kind == OutcomeTimeout && second.Outcome.Kind != OutcomeTimeout && (second.Gradable || !first.Gradable) && unread == "" && !failedAgain(second, rerun) {
		// Not every check failed again, so the rerun played every
		// scenario: it is a whole run, which may stand for the first.
		res = confirmTimeout(first, second, opts.TimeScale)
	} else {
		res = confirmChecks(first, second, opts.TimeScale, unread)
	}
	// The wall time is both runs': the rerun is part of grading.
	res.DurationMS = total
	return res, nil
}

// seenOnlyUnread reports whether every check of ids failed in first only
// in scenarios in which the program, once ready, read none of its input
// (Result.Unread, CheckResult.Scenarios). Such a program was given
// nothing of those scenarios but the time to read them: what it did there
// could not depend on which one it was, so a rerun at a larger scale in
// which it again reads none of one scenario's input shows each of those
// failures again, and the rerun may stop there (Options.StopOnceUnread)
// instead of waiting out every scenario's deadlines once more at four
// times their length. It is false when ids is empty, or when a check's
// evidence names no scenario.
func seenOnlyUnread(first *Result, ids []string) bool {
	if len(ids) == 0 || len(first.Unread) == 0 {
		return false
	}
	for _, c := range first.Checks {
		if !slices.Contains(ids, c.ID) {
			continue
		}
		if len(c.Scenarios) == 0 {
			return false
		}
		for _, sc := range c.Scenarios {
			if !slices.Contains(first.Unread, sc) {
				return false
			}
		}
	}
	return true
}

// failedAgain reports whether every check of ids failed in second, the
// rerun: then it may have stopped early (Options.StopOnceFailed), and
// judged only some scenarios. It is false when ids is empty.
func failedAgain(second *Result, ids []string) bool {
	if len(ids) == 0 {
		return false
	}
	for _, id := range ids {
		j := slices.IndexFunc(second.Checks, func(c CheckResult) bool { return c.ID == id })
		if j < 0 || second.Checks[j].Status != StatusFail {
			return false
		}
	}
	return true
}

// firstScenarios names, for each check of ids, the scenario its failure
// in res was first seen in (CheckResult.Scenarios), in check order and
// each once: the scenarios most likely to show again what the rerun
// confirms. It is a hint for the order of the rerun and nothing more (see
// Options.First): a name that is not one of the lesson's scenarios is
// passed over, and a check whose evidence names none leaves the order to
// the lesson.
func firstScenarios(res *Result, ids []string) []string {
	var names []string
	for _, c := range res.Checks {
		if !slices.Contains(ids, c.ID) || len(c.Scenarios) == 0 {
			continue
		}
		if name := c.Scenarios[0]; !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// confirmTimeout keeps the rerun of a first run that timed out as a whole,
// when the rerun, at a larger scale, did not: the first run met a deadline
// the machine, not the program, made it miss.
func confirmTimeout(first, second *Result, scale float64) *Result {
	conf := &Confirmation{Scale: scale, Rerun: deadlineFailures(first), Timeout: true}
	for _, c := range second.Checks {
		if c.Status != StatusFail && slices.Contains(conf.Rerun, c.ID) {
			conf.Cleared = append(conf.Cleared, c.ID)
		}
	}
	second.Confirmed = conf
	second.Outcome.Detail = strings.TrimSpace(second.Outcome.Detail + fmt.Sprintf(
		" The first run timed out (%s); graded again with every deadline %g times longer, it did not, so the machine was slow, not the program, and this is the second run's result.",
		strings.TrimSuffix(first.Outcome.Detail, "."), float64(ConfirmScale)))
	return second
}

// confirmChecks gives each check of first whose failure rested on
// deadlines the rerun's verdict when the rerun did not fail it (it is
// cleared), and keeps the first verdict, saying it was confirmed, of one
// the rerun failed again; every other check keeps its first verdict, and
// the score is worked out again. When unread names a scenario of the
// rerun in which the program again read none of its input, and first
// failed each of these checks only where it read none either (see
// seenOnlyUnread), each counts as failed again.
func confirmChecks(first, second *Result, scale float64, unread string) *Result {
	rerun := deadlineFailures(first)
	conf := &Confirmation{Scale: scale, Rerun: rerun}
	for i, c := range first.Checks {
		if !slices.Contains(rerun, c.ID) {
			continue
		}
		if unread != "" {
			// Charged: every scenario it failed in, the program read
			// none of, and it read none of scenario unread again.
			c.Message = strings.TrimSpace(c.Message + fmt.Sprintf(
				" (This failure rested on a deadline, and was seen only where the server, once ready, read none of its stdin, so it was graded again with every deadline %g times longer: in scenario %s the server again read none of its stdin, so it is the program, not a slow machine.)", float64(ConfirmScale), unread))
			first.Checks[i] = c
			continue
		}
		j := slices.IndexFunc(second.Checks, func(s CheckResult) bool { return s.ID == c.ID })
		if j < 0 {
			continue
		}
		again := second.Checks[j]
		if again.Status == StatusFail {
			// Charged: the first verdict stands, with all its evidence (the
			// rerun may have stopped at the first scenario that failed it
			// again), and says it was confirmed.
			c.Message = strings.TrimSpace(c.Message + fmt.Sprintf(
				" (This failure rested on a deadline, so the check was graded again with every deadline %g times longer; it failed again, so it is the program, not a slow machine.)", float64(ConfirmScale)))
			first.Checks[i] = c
			continue
		}
		conf.Cleared = append(conf.Cleared, c.ID)
		if again.Status == StatusPass {
			again.Message = fmt.Sprintf("Passed when graded again with every deadline %g times longer. The first run failed it only because a deadline passed: the machine was slow, not the program, so it costs no points.", float64(ConfirmScale))
		}
		first.Checks[i] = again
	}
	if unread == "" && !failedAgain(second, rerun) {
		conf.Judged = judgeSkipped(first, second)
		if first.Outcome.Kind != OutcomeTimeout && sameStatuses(first, second) {
			// The rerun played every scenario and alone shows every
			// verdict: its transcript is the evidence a report shows and
			// a teacher compares, not the first run's, whose deadlines
			// the machine missed.
			first.Transcript, first.Orders = second.Transcript, second.Orders
		}
	}
	first.Score = 0
	for _, c := range first.Checks {
		first.Score += c.Points
	}
	first.Confirmed = conf
	var note string
	switch {
	case len(rerun) == 0:
		// Only skips were confirmed: their messages say what the rerun found.
	case len(conf.Cleared) == len(rerun):
		note = fmt.Sprintf(" %s (%s) failed only because a deadline passed; graded again with every deadline %g times longer, %s: the machine was slow, not the program, so %s no points.",
			CountOf(len(rerun), "check", "checks"), strings.Join(rerun, ", "), float64(ConfirmScale),
			Pick(len(rerun), "it passed", "they passed"), Pick(len(rerun), "it costs", "they cost"))
	case len(conf.Cleared) > 0:
		note = fmt.Sprintf(" %s (%s) failed because a deadline passed, and were graded again with every deadline %g times longer: %s (%s) did not fail again, so the machine was slow there, not the program, and %s no points; the rest failed again and are charged.",
			CountOf(len(rerun), "check", "checks"), strings.Join(rerun, ", "), float64(ConfirmScale),
			CountOf(len(conf.Cleared), "check", "checks"), strings.Join(conf.Cleared, ", "), Pick(len(conf.Cleared), "it costs", "they cost"))
	default:
		note = fmt.Sprintf(" %s (%s) failed because a deadline passed; graded again with every deadline %g times longer, %s again, so the program, not a slow machine, is the cause.",
			CountOf(len(rerun), "check", "checks"), strings.Join(rerun, ", "), float64(ConfirmScale), Pick(len(rerun), "it failed", "they failed"))
	}
	if failed := first.Failed(); len(failed) == 0 && first.Outcome.Kind == OutcomeWrongAnswers {
		first.Outcome = Outcome{Kind: OutcomePassed, Detail: "Every check passed."}
	} else if first.Outcome.Kind == OutcomeWrongAnswers {
		first.Outcome.Detail = fmt.Sprintf("%s failed: %s.", CountOf(len(failed), "check", "checks"), strings.Join(failed, ", "))
	}
	if len(conf.Judged) > 0 {
		note += fmt.Sprintf(" %s (%s) could not be judged in the first run and %s the verdict of the rerun, which had every deadline %g times longer.",
			CountOf(len(conf.Judged), "check", "checks"), strings.Join(conf.Judged, ", "), Pick(len(conf.Judged), "takes", "take"), float64(ConfirmScale))
	}
	if first.Outcome.Kind == OutcomeTimeout {
		conf.Timeout = true
		note = fmt.Sprintf(" The run was graded again with every deadline %g times longer, and %s, so the program, not a slow machine, is the cause.",
			float64(ConfirmScale), timedOutAgain(second, rerun, unread))
		if len(conf.Cleared) > 0 {
			note += fmt.Sprintf(" Of the checks that failed only on a deadline, %s (%s) passed the second time and %s no points.",
				CountOf(len(conf.Cleared), "check", "checks"), strings.Join(conf.Cleared, ", "), Pick(len(conf.Cleared), "costs", "cost"))
		}
	}
	first.Outcome.Detail = strings.TrimSpace(first.Outcome.Detail + note)
	return first
}

// judgeSkipped gives each check first left unjudged the verdict of
// second, a rerun that played every scenario, when second judged it: a
// check is often not judged because an earlier step's answer is missing,
// and when that step failed on a deadline the rerun, at a larger scale,
// has the evidence the first run lacked. Never hiding a check's evidence
// behind a slow machine's fault, the rerun's verdict stands, pass or fail,
// and its message says where it comes from. It returns the ids of the
// checks it gave a verdict, in check order.
func judgeSkipped(first, second *Result) []string {
	var judged []string
	for i, c := range first.Checks {
		if c.Status != StatusSkip {
			continue
		}
		j := slices.IndexFunc(second.Checks, func(s CheckResult) bool { return s.ID == c.ID })
		if j < 0 || second.Checks[j].Status == StatusSkip {
			continue
		}
		again := second.Checks[j]
		again.Message = strings.TrimSpace(fmt.Sprintf("Not judged in the first run (%s); judged in the rerun with every deadline %g times longer. %s",
			strings.TrimSuffix(strings.TrimPrefix(c.Message, "Not judged: "), "."), float64(ConfirmScale), again.Message))
		first.Checks[i] = again
		judged = append(judged, c.ID)
	}
	return judged
}

// sameStatuses reports whether every check of a has the status it has in b.
func sameStatuses(a, b *Result) bool {
	if len(a.Checks) != len(b.Checks) {
		return false
	}
	for i, c := range a.Checks {
		if c.ID != b.Checks[i].ID || c.Status != b.Checks[i].Status {
			return false
		}
	}
	return true
}

// timedOutAgain says how the rerun of a run that timed out ended, when it
// did not clear it: the server again read none of its stdin in scenario
// unread, it timed out again, could not be graded, or failed again every
// check of rerun, those that had failed on a deadline.
func timedOutAgain(second *Result, rerun []string, unread string) string {
	switch {
	case unread != "":
		return fmt.Sprintf("in scenario %s the server, once ready, again read none of its stdin, as in every scenario where a check failed on a deadline", unread)
	case second.Outcome.Kind == OutcomeTimeout:
		return "it timed out again"
	case !second.Gradable || len(rerun) == 0:
		return fmt.Sprintf("it could not be graded (%s)", second.Outcome.Kind)
	}
	return fmt.Sprintf("%s that had failed on a deadline failed again", Pick(len(rerun), "the check", "every check"))
}

// Summary says in a sentence, for a report, what was confirmed: which
// checks failed only because a deadline passed and were cleared by the
// rerun, and that the machine was slow, not the program. It is "" when
// nothing was cleared (a failure confirmed by the rerun is its check's
// message's to explain).
func (c *Confirmation) Summary() string {
	if c == nil || len(c.Cleared) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%s) failed at first only because a deadline passed; graded again with every deadline %g times longer, %s: the machine was slow, not the program, so %s no points.",
		CountOf(len(c.Cleared), "check", "checks"), strings.Join(c.Cleared, ", "), float64(ConfirmScale),
		Pick(len(c.Cleared), "it passed", "they passed"), Pick(len(c.Cleared), "it costs", "they cost"))
}
