package grading

import "strings"

// Failure is one piece of evidence against a check.
type Failure struct {
	Scenario string
	Where    string // the line it is about ("line 3"), if any
	// Line is the line of the scenario's input the failure is about, as
	// sent (its line end dropped), when What quotes one: the first it
	// quotes. It becomes the check's CheckResult.Line.
	Line     string
	What     string // what happened, in a sentence
	Expected string // what a correct server does
	Actual   string // what this server did, when it is a line of output
	// Deadline is set when the failure rests on a deadline that passed:
	// nothing came within the wait, the program was still running some
	// time after its stdin closed, the run timed out. A slow machine can
	// cause such a failure as well as a wrong program, so Confirm grades
	// again at a larger time scale before the check is charged.
	Deadline bool
}

// tally collects, per check id, whether any scenario tested it and what
// went wrong.
type Tally struct {
	Tested   map[string]bool
	Failures map[string][]Failure
	// skips says, per check, why part of its evidence could not be
	// judged: such a check neither passes nor fails (unless something
	// else failed it).
	Skips map[string][]string
	// DeadlineSkips counts, per check, those of its skips that rest on a
	// deadline (see RestOnDeadline): when every skip of a check does, a
	// rerun at a larger time scale may judge it (see Confirm).
	DeadlineSkips map[string]int
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{Tested: map[string]bool{}, Failures: map[string][]Failure{}, Skips: map[string][]string{}, DeadlineSkips: map[string]int{}}
}

// RestOnDeadline marks everything t holds against its checks, every
// failure and every skip, as resting on a deadline, and adds why to each
// failure that did not rest on one already. A judge calls it for the
// tally of a scenario whose evidence a deadline cut short as a whole (a
// client that gave up on a request the lab answered): what went wrong
// after it may be the machine's load, so Confirm grades it again at a
// larger time scale before anything is charged or left unjudged.
func (t *Tally) RestOnDeadline(why string) {
	for c, fs := range t.Failures {
		for i := range fs {
			if !fs[i].Deadline {
				fs[i].What = strings.TrimSuffix(fs[i].What, ".") + "; " + why
				fs[i].Deadline = true
			}
		}
		t.Failures[c] = fs
	}
	if t.DeadlineSkips == nil {
		t.DeadlineSkips = map[string]int{}
	}
	for c, why := range t.Skips {
		t.DeadlineSkips[c] = len(why)
	}
}

// skip records that a check could not be judged here, and why.
func (t *Tally) Skip(why string, checks ...string) {
	for _, c := range checks {
		if c == "" {
			continue // a judge whose lesson has no check for it
		}
		t.Skips[c] = append(t.Skips[c], why)
	}
}

// Test records that the checks were judged here. A charge to "", the
// check of a judge the lesson's catalogue does not name, is dropped, as in
// Fail and Skip.
func (t *Tally) Test(checks ...string) {
	for _, c := range checks {
		if c == "" {
			continue
		}
		t.Tested[c] = true
	}
}

// Fail records f as evidence against the checks.
func (t *Tally) Fail(f Failure, checks ...string) {
	for _, c := range checks {
		if c == "" {
			continue
		}
		t.Tested[c] = true
		t.Failures[c] = append(t.Failures[c], f)
	}
}
