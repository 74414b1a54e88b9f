package grading

import (
	"context"
	"strings"
	"testing"
	"time"
)

// scriptedLesson is a Lesson whose grades are given in advance: the nth
// call of Grade returns tallies[n] judged against its checks. It records
// the time scale of every call.
type scriptedLesson struct {
	LessonBase
	checks  []Check
	tallies []func() *Tally
	outcome []OutcomeKind
	scales  []float64
}

func (l *scriptedLesson) Checks() []Check { return l.checks }

func (l *scriptedLesson) Grade(ctx context.Context, opts Options) (*Result, error) {
	n := len(l.scales)
	l.scales = append(l.scales, opts.TimeScale)
	if n >= len(l.tallies) {
		n = len(l.tallies) - 1
	}
	res := &Result{Lesson: 1, Gradable: true}
	res.Judge(l.checks, l.tallies[n]())
	kind := OutcomeWrongAnswers
	if l.outcome != nil {
		kind = l.outcome[n]
	}
	if len(res.Failed()) == 0 && kind == OutcomeWrongAnswers {
		kind = OutcomeGraded
	}
	res.Outcome = Outcome{Kind: kind, Detail: strings.Join(res.Failed(), ", ")}
	return res, nil
}

func (l *scriptedLesson) Budget(int, time.Duration) time.Duration { return time.Second }
func (l *scriptedLesson) Designed(time.Duration) time.Duration    { return time.Second }
func (l *scriptedLesson) Reference(string, string) []string       { return nil }

var confirmChecksCatalogue = []Check{{ID: "answers", Title: "answers", Points: 2}, {ID: "exit-on-eof", Title: "exits", Points: 1}}

// tallyOf is a tally in which both checks were judged, with failures
// against exit-on-eof (slow: a deadline passed) and answers (wrong: a
// failure that rests on no deadline), as asked.
func tallyOf(slow, wrong bool) func() *Tally {
	return func() *Tally {
		t := NewTally()
		t.Test("answers", "exit-on-eof")
		if slow {
			t.Fail(Failure{Scenario: "s", What: "the server was still running 5s after its stdin closed", Deadline: true}, "exit-on-eof")
		}
		if wrong {
			t.Fail(Failure{Scenario: "s", What: "id 1 got the wrong answer"}, "answers")
		}
		return t
	}
}

func check(t *testing.T, res *Result, id string) CheckResult {
	t.Helper()
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s", id)
	return CheckResult{}
}

func TestConfirmClearsADeadlineFailureThatPassesAtALargerScale(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{tallyOf(true, false), tallyOf(false, false)}}
	opts := Options{TimeScale: 1.5}
	first, _ := l.Grade(context.Background(), opts)
	if c := check(t, first, "exit-on-eof"); c.Status != StatusFail || !c.Deadline {
		t.Fatalf("first run: exit-on-eof %s, deadline %v: want a deadline failure", c.Status, c.Deadline)
	}
	res, err := Confirm(context.Background(), l, opts, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.scales) != 2 || l.scales[1] != 1.5*ConfirmScale {
		t.Errorf("time scales %v: want one rerun at %g", l.scales, 1.5*ConfirmScale)
	}
	if c := check(t, res, "exit-on-eof"); c.Status != StatusPass || c.Points != 1 || !strings.Contains(c.Message, "slow") {
		t.Errorf("exit-on-eof after the rerun: %+v: want a pass that says the machine was slow", c)
	}
	if res.Score != 3 || res.MaxScore != 3 || res.Outcome.Kind != OutcomeGraded {
		t.Errorf("score %d/%d, outcome %s: want 3/3, passed", res.Score, res.MaxScore, res.Outcome.Kind)
	}
	if res.Confirmed == nil || res.Confirmed.Scale != 1.5*ConfirmScale ||
		strings.Join(res.Confirmed.Rerun, ",") != "exit-on-eof" || strings.Join(res.Confirmed.Cleared, ",") != "exit-on-eof" {
		t.Errorf("confirmed %+v: want exit-on-eof rerun and cleared at scale %g", res.Confirmed, 1.5*ConfirmScale)
	}
	if s := res.Confirmed.Summary(); !strings.Contains(s, "exit-on-eof") || !strings.Contains(s, "slow") {
		t.Errorf("summary %q does not name the cleared check and the slow machine", s)
	}
	if !strings.Contains(res.Outcome.Detail, "the machine was slow, not the program") {
		t.Errorf("detail %q does not say the machine was slow", res.Outcome.Detail)
	}
}

func TestConfirmChargesADeadlineFailureThatFailsAgain(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{tallyOf(true, false), tallyOf(true, false)}}
	first, _ := l.Grade(context.Background(), Options{})
	res, err := Confirm(context.Background(), l, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.scales) != 2 || l.scales[1] != ConfirmScale {
		t.Errorf("time scales %v: want one rerun at %d (the scale 0 is 1)", l.scales, ConfirmScale)
	}
	c := check(t, res, "exit-on-eof")
	if c.Status != StatusFail || c.Points != 0 || !strings.Contains(c.Message, "failed again") {
		t.Errorf("exit-on-eof: %+v: want it charged, saying it failed again", c)
	}
	if res.Score != 2 || res.Outcome.Kind != OutcomeWrongAnswers {
		t.Errorf("score %d, outcome %s: want 2, wrong-answers", res.Score, res.Outcome.Kind)
	}
	if res.Confirmed == nil || len(res.Confirmed.Cleared) != 0 || strings.Join(res.Confirmed.Rerun, ",") != "exit-on-eof" {
		t.Errorf("confirmed %+v: want exit-on-eof rerun, nothing cleared", res.Confirmed)
	}
}

func TestConfirmKeepsOtherFailuresFirstVerdict(t *testing.T) {
	// The rerun gets the wrong answer right by chance: the check that did
	// not rest on a deadline keeps the first verdict all the same.
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{tallyOf(true, true), tallyOf(false, false)}}
	first, _ := l.Grade(context.Background(), Options{})
	res, err := Confirm(context.Background(), l, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if c := check(t, res, "answers"); c.Status != StatusFail || c.Deadline {
		t.Errorf("answers: %+v: want the first run's failure", c)
	}
	if c := check(t, res, "exit-on-eof"); c.Status != StatusPass {
		t.Errorf("exit-on-eof: %+v: want the rerun's pass", c)
	}
	if res.Score != 1 || strings.Join(res.Failed(), ",") != "answers" {
		t.Errorf("score %d, failed %v: want 1, [answers]", res.Score, res.Failed())
	}
}

func TestConfirmNeverRerunsAFailureWithoutADeadline(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{tallyOf(false, true)}}
	first, _ := l.Grade(context.Background(), Options{})
	res, err := Confirm(context.Background(), l, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.scales) != 1 || res != first || res.Confirmed != nil {
		t.Errorf("%d grades, confirmed %+v: want no rerun", len(l.scales), res.Confirmed)
	}
	// A failure with evidence of both kinds does not rest on deadlines
	// alone, and is not rerun either.
	mixed := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{func() *Tally {
		t := tallyOf(true, false)()
		t.Fail(Failure{What: "the server exited with status 2"}, "exit-on-eof")
		return t
	}}}
	first, _ = mixed.Grade(context.Background(), Options{})
	if _, err := Confirm(context.Background(), mixed, Options{}, first); err != nil {
		t.Fatal(err)
	}
	if len(mixed.scales) != 1 {
		t.Errorf("%d grades of a mixed failure: want no rerun", len(mixed.scales))
	}
}

func TestConfirmRerunsATimeoutOnce(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue,
		tallies: []func() *Tally{tallyOf(true, false), tallyOf(false, false)},
		outcome: []OutcomeKind{OutcomeTimeout, OutcomeWrongAnswers}}
	first, _ := l.Grade(context.Background(), Options{TimeScale: 2})
	res, err := Confirm(context.Background(), l, Options{TimeScale: 2}, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.scales) != 2 || l.scales[1] != 2*ConfirmScale {
		t.Errorf("time scales %v: want one rerun at %g", l.scales, 2.0*ConfirmScale)
	}
	if res.Outcome.Kind != OutcomeGraded || res.Score != 3 || res.Confirmed == nil || !res.Confirmed.Timeout {
		t.Errorf("outcome %s, score %d, confirmed %+v: want the rerun's pass, confirmed after a timeout", res.Outcome.Kind, res.Score, res.Confirmed)
	}
	// A rerun that times out again leaves the first result standing.
	hung := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{tallyOf(true, false)},
		outcome: []OutcomeKind{OutcomeTimeout, OutcomeTimeout}}
	first, _ = hung.Grade(context.Background(), Options{})
	res, err = Confirm(context.Background(), hung, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(hung.scales) != 2 || res != first || res.Score != 2 || !strings.Contains(res.Outcome.Detail, "timed out again") {
		t.Errorf("%d grades, score %d, detail %q: want one rerun, the first result kept", len(hung.scales), res.Score, res.Outcome.Detail)
	}
}
