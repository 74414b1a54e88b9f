package grading

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// judge gives every check its verdict from the tally, and the score.
func (res *Result) Judge(checks []Check, t *Tally) {
	for _, c := range checks {
		res.Checks = append(res.Checks, verdict(c, t))
	}
	for _, c := range res.Checks {
		res.Score += c.Points
		res.MaxScore += c.MaxPoints
	}
}

// couldNotStart makes res the result of a program that could not be
// started: not gradable, every check skipped with the problem.
func (res *Result) CouldNotStart(checks []Check, problem string, started time.Time) *Result {
	res.Gradable = false
	res.Problem = problem
	res.Outcome = Outcome{Kind: OutcomeCouldNotStart, Detail: problem}
	res.Checks = skipAll(checks, "Not judged: "+problem+".")
	res.MaxScore = maxScore(checks)
	res.DurationMS = time.Since(started).Milliseconds()
	return res
}

// verdict turns the evidence about one check into its result.
func verdict(c Check, t *Tally) CheckResult {
	r := CheckResult{ID: c.ID, Title: c.Title, MaxPoints: c.Points, Rule: c.Rule, Fix: c.Fix}
	fails := t.Failures[c.ID]
	switch {
	case len(fails) > 0:
		r.Status = StatusFail
		f := fails[0]
		var b strings.Builder
		if f.Scenario != "" {
			fmt.Fprintf(&b, "In scenario %s, %s.", f.Scenario, strings.TrimSuffix(f.What, "."))
		} else {
			fmt.Fprintf(&b, "%s%s.", strings.ToUpper(f.What[:1]), strings.TrimSuffix(f.What[1:], "."))
		}
		if more := MorePlaces(f, fails[1:]); more != "" {
			b.WriteString(" " + more)
		}
		if c.Rule != "" {
			fmt.Fprintf(&b, " Rule: %s", c.Rule)
		}
		if c.Fix != "" {
			fmt.Fprintf(&b, " Fix: %s", c.Fix)
		}
		r.Message = b.String()
		r.Expected, r.Actual, r.Line = f.Expected, f.Actual, f.Line
		r.Deadline = true
		for _, g := range fails {
			r.Deadline = r.Deadline && g.Deadline
			if g.Scenario != "" && !slices.Contains(r.Scenarios, g.Scenario) {
				r.Scenarios = append(r.Scenarios, g.Scenario)
			}
		}
	case len(t.Skips[c.ID]) > 0:
		r.Status = StatusSkip
		r.Message = "Not judged: " + strings.TrimSuffix(t.Skips[c.ID][0], ".") + "."
		r.Deadline = t.DeadlineSkips[c.ID] == len(t.Skips[c.ID])
	case t.Tested[c.ID]:
		r.Status, r.Points = StatusPass, c.Points
	default:
		r.Status = StatusSkip
		r.Message = "Not judged: no scenario gave evidence for this check (the server gave no answers to judge it by, or no scenario of the lesson tests it)."
	}
	return r
}

func skipAll(checks []Check, why string) []CheckResult {
	var out []CheckResult
	for _, c := range checks {
		out = append(out, CheckResult{ID: c.ID, Title: c.Title, Status: StatusSkip, MaxPoints: c.Points, Message: why, Rule: c.Rule, Fix: c.Fix})
	}
	return out
}

func maxScore(checks []Check) int {
	n := 0
	for _, c := range checks {
		n += c.Points
	}
	return n
}
