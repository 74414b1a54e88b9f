package grading

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
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
	// opts are the options of every call.
	opts []Options
	// unread, when set, is the Result.Unread of the nth call.
	unread [][]string
}

func (l *scriptedLesson) Checks() []Check { return l.checks }

func (l *scriptedLesson) Grade(ctx context.Context, opts Options) (*Result, error) {
	n := len(l.scales)
	l.scales = append(l.scales, opts.TimeScale)
	l.opts = append(l.opts, opts)
	if n >= len(l.tallies) {
		n = len(l.tallies) - 1
	}
	res := &Result{Lesson: 1, Gradable: true}
	if n < len(l.unread) {
		res.Unread = l.unread[n]
	}
	res.Judge(l.checks, l.tallies[n]())
	kind := OutcomeWrongAnswers
	if l.outcome != nil {
		kind = l.outcome[n]
	}
	if len(res.Failed()) == 0 && kind == OutcomeWrongAnswers {
		kind = OutcomePassed
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
	if res.Score != 3 || res.MaxScore != 3 || res.Outcome.Kind != OutcomePassed {
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
	if res.Outcome.Kind != OutcomePassed || res.Score != 3 || res.Confirmed == nil || !res.Confirmed.Timeout {
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

func TestConfirmPlaysFirstWhereTheDeadlinesRanOutAndStopsOnceTheyFailAgain(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{tallyOf(true, false), tallyOf(true, false)}}
	first, _ := l.Grade(context.Background(), Options{})
	if _, err := Confirm(context.Background(), l, Options{First: []string{"x"}, StopOnceFailed: []string{"y"}}, first); err != nil {
		t.Fatal(err)
	}
	if len(l.opts) != 2 {
		t.Fatalf("%d grades, want 2", len(l.opts))
	}
	rerun := l.opts[1]
	if strings.Join(rerun.First, ",") != "s" || strings.Join(rerun.StopOnceFailed, ",") != "exit-on-eof" {
		t.Errorf("the rerun plays %v first and stops once %v failed: want [s] (where exit-on-eof failed), and [exit-on-eof]", rerun.First, rerun.StopOnceFailed)
	}
}

func TestConfirmKeepsTheFirstVerdictOfACheckThatFailsAgain(t *testing.T) {
	// The rerun stopped at the first scenario that failed the check again:
	// its message names that one place, the first run's names them all.
	again := func() *Tally {
		t := NewTally()
		t.Fail(Failure{Scenario: "b", What: "the server was still running 20s after its stdin closed", Deadline: true}, "exit-on-eof")
		return t
	}
	everywhere := func() *Tally {
		t := tallyOf(false, false)()
		for _, sc := range []string{"b", "a", "c"} {
			t.Fail(Failure{Scenario: sc, What: "the server was still running 5s after its stdin closed", Deadline: true}, "exit-on-eof")
		}
		return t
	}
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{everywhere, again},
		outcome: []OutcomeKind{OutcomeTimeout, OutcomeTimeout}}
	first, _ := l.Grade(context.Background(), Options{})
	want := check(t, first, "exit-on-eof").Message
	res, err := Confirm(context.Background(), l, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(l.opts[1].First, ",") != "b" {
		t.Errorf("the rerun plays %v first: want [b], where the failure was first seen", l.opts[1].First)
	}
	c := check(t, res, "exit-on-eof")
	if !strings.HasPrefix(c.Message, want+" (This failure rested on a deadline") || !strings.Contains(c.Message, "2 more places") || !strings.Contains(c.Message, "failed again") {
		t.Errorf("exit-on-eof says %q: want the first run's message, every place, then that it failed again", c.Message)
	}
	if res.Score != 2 || res.Outcome.Kind != OutcomeTimeout || !strings.Contains(res.Outcome.Detail, "timed out again") {
		t.Errorf("score %d, outcome %s (%s): want 2, the timeout confirmed", res.Score, res.Outcome.Kind, res.Outcome.Detail)
	}
}

func TestConfirmNeverReplacesATimeoutWithARerunThatFailedItAllAgain(t *testing.T) {
	// A rerun that failed every deadline check again may have stopped
	// early: though it did not time out, it is no whole run to stand for
	// the first, which is kept, its timeout confirmed.
	l := &scriptedLesson{checks: confirmChecksCatalogue,
		tallies: []func() *Tally{tallyOf(true, false), func() *Tally {
			t := NewTally()
			t.Fail(Failure{Scenario: "s", What: "the server exited with status 1 after its stdin closed"}, "exit-on-eof")
			return t
		}},
		outcome: []OutcomeKind{OutcomeTimeout, OutcomeWrongAnswers}}
	first, _ := l.Grade(context.Background(), Options{})
	res, err := Confirm(context.Background(), l, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if res != first || res.Outcome.Kind != OutcomeTimeout || res.Score != 2 || len(res.Confirmed.Cleared) != 0 {
		t.Errorf("outcome %s, score %d, confirmed %+v: want the first result, its timeout and exit-on-eof confirmed", res.Outcome.Kind, res.Score, res.Confirmed)
	}
	if !strings.Contains(res.Outcome.Detail, "the check that had failed on a deadline failed again") {
		t.Errorf("detail %q does not say the deadline check failed again", res.Outcome.Detail)
	}
}

func TestPlayOrder(t *testing.T) {
	names := []string{"01", "02", "03", "04"}
	for _, c := range []struct {
		first []string
		want  []int
	}{
		{nil, []int{0, 1, 2, 3}},
		{[]string{"03"}, []int{2, 0, 1, 3}},
		{[]string{"04", "nope", "02", "04"}, []int{3, 1, 0, 2}},
	} {
		if got := (Options{First: c.first}).PlayOrder(names); !slices.Equal(got, c.want) {
			t.Errorf("first %v: order %v, want %v", c.first, got, c.want)
		}
	}
}

func TestEnoughAndMergeTallies(t *testing.T) {
	a, b := NewTally(), NewTally()
	a.Fail(Failure{Scenario: "a", What: "one"}, "x")
	a.Skip("not here", "z")
	b.Fail(Failure{Scenario: "b", What: "two"}, "x", "y")
	b.Test("z")
	ts := []*Tally{a, nil, b}
	if (Options{}).Enough(ts) {
		t.Error("enough with no StopOnceFailed")
	}
	if !(Options{StopOnceFailed: []string{"x", "y"}}).Enough(ts) || (Options{StopOnceFailed: []string{"x", "z"}}).Enough(ts) {
		t.Error("enough should be whether every check named has failed")
	}
	m := MergeTallies(ts)
	if len(m.Failures["x"]) != 2 || m.Failures["x"][0].Scenario != "a" || m.Failures["x"][1].Scenario != "b" ||
		len(m.Failures["y"]) != 1 || !m.Tested["z"] || len(m.Skips["z"]) != 1 {
		t.Errorf("merged %+v: want the failures of x in order a, b, y's, z tested and skipped once", m)
	}
}

func TestFirstScenariosAreWhereEachFailureWasFirstSeen(t *testing.T) {
	tally := NewTally()
	tally.Fail(Failure{Scenario: "03-concurrent", What: "line 2 got nothing", Deadline: true}, "a")
	tally.Fail(Failure{Scenario: "01-schedule", What: "later", Deadline: true}, "a")
	tally.Fail(Failure{Scenario: "sweep-1-of-4 (cuts 42, one byte per write)", What: "1 of the 11 lines got no answer", Deadline: true}, "b")
	tally.Fail(Failure{Scenario: "03-concurrent", What: "the order of ids 2 and 1", Deadline: true}, "c")
	tally.Fail(Failure{What: "the server wrote nothing at all to stderr in any scenario"}, "d")
	tally.Fail(Failure{Scenario: "09-id-true", What: "not asked for"}, "e")
	res := &Result{}
	res.Judge([]Check{{ID: "a", Points: 1}, {ID: "b", Points: 1}, {ID: "c", Points: 1}, {ID: "d", Points: 1}, {ID: "e", Points: 1}}, tally)
	if got := res.Checks[0].Scenarios; !slices.Equal(got, []string{"03-concurrent", "01-schedule"}) {
		t.Errorf("check a's scenarios %q, want where its evidence came from, in order", got)
	}
	got := firstScenarios(res, []string{"a", "b", "c", "d"})
	if want := []string{"03-concurrent", "sweep-1-of-4 (cuts 42, one byte per write)"}; !slices.Equal(got, want) {
		t.Errorf("first scenarios %q, want %q", got, want)
	}
}

// TestConfirmJudgesWhatTheFirstRunCouldNotJudge checks that a check the
// first run left unjudged, because the step its evidence needed failed on
// a deadline, takes the verdict of a rerun that played every scenario,
// pass or fail, and keeps its skip when the rerun stopped early.
func TestConfirmJudgesWhatTheFirstRunCouldNotJudge(t *testing.T) {
	slowAndSkipped := func() *Tally {
		tl := NewTally()
		tl.Test("exit-on-eof")
		tl.Fail(Failure{Scenario: "s", What: "the list timed out", Deadline: true}, "exit-on-eof")
		tl.Skip("the list it needs was not answered.", "answers")
		return tl
	}
	for _, tc := range []struct {
		name       string
		rerun      func() *Tally
		wantStatus Status
		wantScore  int
	}{
		{"rerun passes both", tallyOf(false, false), StatusPass, 3},
		{"rerun fails answers alone", tallyOf(false, true), StatusFail, 1},
		{"rerun fails the deadline again", tallyOf(true, true), StatusSkip, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{slowAndSkipped, tc.rerun}}
			first, _ := l.Grade(context.Background(), Options{TimeScale: 1})
			if c := check(t, first, "answers"); c.Status != StatusSkip {
				t.Fatalf("first run: answers %s, want skipped", c.Status)
			}
			res, err := Confirm(context.Background(), l, Options{TimeScale: 1}, first)
			if err != nil {
				t.Fatal(err)
			}
			c := check(t, res, "answers")
			if c.Status != tc.wantStatus || res.Score != tc.wantScore {
				t.Errorf("answers %s, score %d; want %s, score %d", c.Status, res.Score, tc.wantStatus, tc.wantScore)
			}
			if tc.wantStatus != StatusSkip && !strings.Contains(c.Message, "Not judged in the first run (the list it needs was not answered); judged in the rerun") {
				t.Errorf("answers' message %q does not say where its verdict comes from", c.Message)
			}
		})
	}
}

// givenUp is the tally of a scenario in which the program's own timeout
// cut the evidence short: answers failed and exit-on-eof could not be
// judged, and the judge said it all rests on that deadline.
func givenUp() *Tally {
	t := NewTally()
	t.Fail(Failure{Scenario: "s", What: "the answer to command 1 lists no tools of notes"}, "answers")
	t.Skip("while command 2 ran, the client sent nothing", "exit-on-eof")
	t.RestOnDeadline("the client had given up on notes")
	return t
}

func TestRestOnDeadlineMarksEveryFailureAndSkip(t *testing.T) {
	res := &Result{}
	res.Judge(confirmChecksCatalogue, givenUp())
	answers, exit := check(t, res, "answers"), check(t, res, "exit-on-eof")
	if answers.Status != StatusFail || !answers.Deadline || !strings.Contains(answers.Message, "the answer to command 1 lists no tools of notes; the client had given up on notes.") {
		t.Errorf("answers: %s, deadline %v, %q: want a failure resting on the deadline, saying why", answers.Status, answers.Deadline, answers.Message)
	}
	if exit.Status != StatusSkip || !exit.Deadline {
		t.Errorf("exit-on-eof: %s, deadline %v: want a skip resting on the deadline", exit.Status, exit.Deadline)
	}
	if !NeedsConfirming(res) {
		t.Error("a result whose failures and skips rest on a deadline needs confirming")
	}
	// A skip with a reason of its own beside one that rests on a deadline
	// would be skipped again: it asks for no rerun.
	other := NewTally()
	other.Test("answers")
	other.Skip("no scenario sends a notification", "exit-on-eof")
	mixed := MergeTallies([]*Tally{givenUpSkipOnly(), other})
	res = &Result{}
	res.Judge(confirmChecksCatalogue, mixed)
	if c := check(t, res, "exit-on-eof"); c.Deadline || NeedsConfirming(res) {
		t.Errorf("exit-on-eof deadline %v, needs confirming %v: want neither, since one skip does not rest on a deadline", c.Deadline, NeedsConfirming(res))
	}
}

// givenUpSkipOnly is givenUp with answers passing: only a skip rests on
// the deadline.
func givenUpSkipOnly() *Tally {
	t := NewTally()
	t.Test("answers")
	t.Skip("while command 2 ran, the client sent nothing", "exit-on-eof")
	t.RestOnDeadline("the client had given up on notes")
	return t
}

func TestConfirmTakesTheRerunWhenAGivenUpScenarioPassesAtALargerScale(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{givenUp, tallyOf(false, false)}}
	first, _ := l.Grade(context.Background(), Options{})
	first.Transcript = []Event{{Scenario: "s", Record: event.Record{Text: "first"}}}
	rerun := &transcriptLesson{scriptedLesson: l, text: "rerun"}
	res, err := Confirm(context.Background(), rerun, Options{TimeScale: 2}, first)
	if err != nil {
		t.Fatal(err)
	}
	if res.Score != 3 || res.Outcome.Kind != OutcomePassed || len(res.Failed()) != 0 {
		t.Fatalf("score %d, outcome %s, failed %v: want 3/3 passed", res.Score, res.Outcome.Kind, res.Failed())
	}
	if c := res.Confirmed; c == nil || !slices.Equal(c.Rerun, []string{"answers"}) || !slices.Equal(c.Cleared, []string{"answers"}) || !slices.Equal(c.Judged, []string{"exit-on-eof"}) || c.Scale != 8 {
		t.Errorf("confirmed %+v: want answers rerun and cleared, exit-on-eof judged, at scale 8", c)
	}
	if c := check(t, res, "exit-on-eof"); c.Status != StatusPass || !strings.Contains(c.Message, "Not judged in the first run (while command 2 ran, the client sent nothing)") {
		t.Errorf("exit-on-eof %s %q: want the rerun's pass, saying where it comes from", c.Status, c.Message)
	}
	if !strings.Contains(res.Outcome.Detail, "1 check (exit-on-eof) could not be judged in the first run and takes the verdict of the rerun") {
		t.Errorf("detail %q does not name the check the rerun judged", res.Outcome.Detail)
	}
	if len(res.Transcript) != 1 || res.Transcript[0].Text != "rerun" {
		t.Errorf("transcript %+v: want the rerun's, which alone shows every verdict", res.Transcript)
	}
}

func TestConfirmJudgesASkipThatRestsOnADeadline(t *testing.T) {
	// No failure at all, only a skip the program's timeout caused: the
	// rerun plays every scenario and gives the check its verdict, here a
	// failure, which stands.
	failsLater := func() *Tally {
		t := NewTally()
		t.Test("answers")
		t.Fail(Failure{Scenario: "s", What: "the client exited with status 1"}, "exit-on-eof")
		return t
	}
	l := &scriptedLesson{checks: confirmChecksCatalogue, tallies: []func() *Tally{givenUpSkipOnly, failsLater}}
	first, _ := l.Grade(context.Background(), Options{})
	res, err := Confirm(context.Background(), l, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.scales) != 2 || l.opts[1].StopOnceFailed != nil {
		t.Fatalf("%d runs, the rerun stopping once %v failed: want one rerun of every scenario", len(l.scales), l.opts[1].StopOnceFailed)
	}
	if c := check(t, res, "exit-on-eof"); c.Status != StatusFail || !slices.Equal(res.Confirmed.Judged, []string{"exit-on-eof"}) {
		t.Errorf("exit-on-eof %s, confirmed %+v: want the rerun's failure, judged by the rerun", c.Status, res.Confirmed)
	}
	if res.Score != 2 || strings.Contains(res.Outcome.Detail, "0 checks") {
		t.Errorf("score %d, detail %q: want 2/3 and no word about failures that were not rerun", res.Score, res.Outcome.Detail)
	}
}

// transcriptLesson is a scriptedLesson whose runs carry a one-event
// transcript with text.
type transcriptLesson struct {
	*scriptedLesson
	text string
}

func (l *transcriptLesson) Grade(ctx context.Context, opts Options) (*Result, error) {
	res, err := l.scriptedLesson.Grade(ctx, opts)
	if res != nil {
		res.Transcript = []Event{{Scenario: "s", Record: event.Record{Text: l.text}}}
	}
	return res, err
}

// deafIn is a tally in which both checks failed on deadlines in each of
// the scenarios named, as a server that reads none of its stdin fails
// them.
func deafIn(scenarios ...string) func() *Tally {
	return func() *Tally {
		t := NewTally()
		t.Test("answers", "exit-on-eof")
		for _, sc := range scenarios {
			t.Fail(Failure{Scenario: sc, What: "no answer to id 1: the server read none of its stdin", Deadline: true}, "answers")
			t.Fail(Failure{Scenario: sc, What: "the server could not see its stdin close", Deadline: true}, "exit-on-eof")
		}
		return t
	}
}

// TestConfirmStopsWhereTheProgramAgainReadsNothing: every deadline
// failure of the first run was seen only in scenarios whose input the
// server never read, so the rerun stops at the first scenario it again
// reads none of, and every one of those failures is charged, though that
// scenario alone showed only some of them again.
func TestConfirmStopsWhereTheProgramAgainReadsNothing(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue,
		tallies: []func() *Tally{deafIn("s1", "s2"), func() *Tally {
			t := NewTally()
			t.Test("answers", "exit-on-eof")
			t.Fail(Failure{Scenario: "s2", What: "the server could not see its stdin close", Deadline: true}, "exit-on-eof")
			return t
		}},
		outcome: []OutcomeKind{OutcomeTimeout, OutcomeTimeout},
		unread:  [][]string{{"s1", "s2"}, {"s2"}}}
	res := grade(t, l)
	if len(l.opts) != 2 || !l.opts[1].StopOnceUnread {
		t.Fatalf("%d grades, the rerun's StopOnceUnread %v: want a rerun that stops where the server reads nothing", len(l.opts), len(l.opts) == 2 && l.opts[1].StopOnceUnread)
	}
	if got := res.Failed(); !slices.Equal(got, []string{"answers", "exit-on-eof"}) {
		t.Errorf("failed %v, want both checks charged", got)
	}
	if res.Confirmed == nil || len(res.Confirmed.Cleared) != 0 || !slices.Equal(res.Confirmed.Rerun, []string{"answers", "exit-on-eof"}) {
		t.Errorf("confirmed %+v: want both rerun, none cleared", res.Confirmed)
	}
	for _, id := range []string{"answers", "exit-on-eof"} {
		if msg := check(t, res, id).Message; !strings.Contains(msg, "in scenario s2 the server again read none of its stdin, so it is the program, not a slow machine") {
			t.Errorf("%s does not say why it was charged: %s", id, msg)
		}
	}
	if !strings.Contains(res.Outcome.Detail, "in scenario s2 the server, once ready, again read none of its stdin") {
		t.Errorf("the outcome does not say how the rerun ended: %s", res.Outcome.Detail)
	}
}

// TestConfirmPlaysOnWhereAFailureWasSeenInInputTheProgramRead: a deadline
// failure was also seen in a scenario whose input the server read, so
// the rerun does not stop where it reads nothing, and a check that passes
// in it is cleared as always.
func TestConfirmPlaysOnWhereAFailureWasSeenInInputTheProgramRead(t *testing.T) {
	l := &scriptedLesson{checks: confirmChecksCatalogue,
		tallies: []func() *Tally{deafIn("s1", "s2"), func() *Tally {
			t := NewTally()
			t.Test("answers", "exit-on-eof")
			t.Fail(Failure{Scenario: "s1", What: "the server could not see its stdin close", Deadline: true}, "exit-on-eof")
			return t
		}},
		unread: [][]string{{"s1"}, {"s1"}}}
	res := grade(t, l)
	if len(l.opts) != 2 || l.opts[1].StopOnceUnread {
		t.Fatalf("%d grades: want one rerun, not stopping where the server reads nothing", len(l.opts))
	}
	if got := res.Failed(); !slices.Equal(got, []string{"exit-on-eof"}) {
		t.Errorf("failed %v, want only exit-on-eof, which failed again", got)
	}
	if res.Confirmed == nil || !slices.Equal(res.Confirmed.Cleared, []string{"answers"}) {
		t.Errorf("confirmed %+v: want answers cleared", res.Confirmed)
	}
}

func TestSeenOnlyUnread(t *testing.T) {
	res := &Result{Unread: []string{"a", "b"}, Checks: []CheckResult{
		{ID: "x", Status: StatusFail, Deadline: true, Scenarios: []string{"a", "b"}},
		{ID: "y", Status: StatusFail, Deadline: true, Scenarios: []string{"b", "c"}},
		{ID: "z", Status: StatusFail, Deadline: true},
	}}
	for _, c := range []struct {
		ids  []string
		want bool
	}{{[]string{"x"}, true}, {[]string{"x", "y"}, false}, {[]string{"z"}, false}, {nil, false}} {
		if got := seenOnlyUnread(res, c.ids); got != c.want {
			t.Errorf("seenOnlyUnread(%v) = %v, want %v", c.ids, got, c.want)
		}
	}
	if seenOnlyUnread(&Result{Checks: res.Checks}, []string{"x"}) {
		t.Error("seenOnlyUnread is true for a result with no unread scenario")
	}
}

// grade grades l once and confirms the result, as Grade does.
func grade(t *testing.T, l *scriptedLesson) *Result {
	t.Helper()
	first, err := l.Grade(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Confirm(context.Background(), l, Options{}, first)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
