package serverlesson

import (
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lab/wire"
)

// deadlineFailures judges one scenario on a run shaped by shape, and
// returns, per failed check, whether each of its failures rests on a
// deadline (grading.Failure.Deadline).
func deadlineFailures(t *testing.T, shape func(*stdioprobe.Run), out ...string) map[string][]bool {
	t.Helper()
	const text = "-- steps --\nat 0ms send ab\nat 100ms close\n-- ab --\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n" +
		"-- expect --\n" +
		"m.one {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" +
		"m.two {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n"
	sc, err := scenario.Parse("x", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	run := &stdioprobe.Run{Scenario: sc, Ready: true, Closed: true, ExitedAfterClose: true}
	shape(run)
	for _, line := range out {
		msg, problem := wire.ParseResponse([]byte(line))
		run.Answers = append(run.Answers, stdioprobe.Answer{Line: line, Msg: msg, Problem: problem})
	}
	checks := []grading.Check{{ID: "answers.once", Judge: judgeNameAnswersOnce}, {ID: "lifecycle.exit-on-eof", Judge: judgeNameExitOnEOF}}
	ev, err := newEvidence(run, sc, servedBy(checks))
	if err != nil {
		t.Fatal(err)
	}
	perScenario, _ := judges(checks)
	tl := grading.NewTally()
	for _, j := range perScenario {
		j(ev, tl)
	}
	got := map[string][]bool{}
	for id, fs := range tl.Failures {
		for _, f := range fs {
			got[id] = append(got[id], f.Deadline)
		}
	}
	return got
}

// A missing answer or a missing exit rests on a deadline when one passed
// with the server still running; a wrong answer never does, nor what a
// server that ended by itself did not do.
func TestFailuresRestingOnDeadlines(t *testing.T) {
	const one = `{"jsonrpc":"2.0","id":1,"result":{}}`
	slowExit := func(r *stdioprobe.Run) {
		r.ExitedAfterClose, r.Killed, r.KillReason, r.DeadlinePassed = false, true, "the server was still running 5s after its stdin closed", true
	}
	got := deadlineFailures(t, slowExit, one)
	if d := got["lifecycle.exit-on-eof"]; len(d) != 1 || !d[0] {
		t.Errorf("a server killed for a slow exit: exit-on-eof failures %v, want one resting on a deadline", d)
	}
	if d := got["m.two"]; len(d) != 1 || !d[0] {
		t.Errorf("an answer that did not come before the exit deadline: m.two failures %v, want one resting on a deadline", d)
	}

	got = deadlineFailures(t, func(r *stdioprobe.Run) {}, one, `{"jsonrpc":"2.0","id":2,"result":{"x":1}}`)
	if d := got["m.two"]; len(d) != 1 || d[0] {
		t.Errorf("a wrong answer: m.two failures %v, want one resting on no deadline", d)
	}

	// The wait before the close ran out, but the server then exited by
	// itself: it had all the time it wanted to answer id 2, and did not.
	got = deadlineFailures(t, func(r *stdioprobe.Run) { r.DeadlinePassed = true }, one)
	if d := got["m.two"]; len(d) != 1 || d[0] {
		t.Errorf("an answer a server that exited by itself never gave: m.two failures %v, want one resting on no deadline", d)
	}

	crashed := func(r *stdioprobe.Run) {
		r.DeadlinePassed = true // the ready wait ran out, then it crashed
		r.Exit = proc.Exit{Code: 2}
	}
	got = deadlineFailures(t, crashed, one)
	for id, d := range got {
		for _, deadline := range d {
			if deadline {
				t.Errorf("a server that crashed after stdin closed: %s has a failure resting on a deadline", id)
			}
		}
	}
	if len(got) == 0 {
		t.Errorf("a server that crashed was charged with nothing")
	}
}

// A server the client had to pace by the schedule (it left a chunk unread
// past the drain deadline) may have got two chunks in one read because the
// machine was slow: even a wrong answer then rests on that deadline, and is
// confirmed before it is charged. Unpaced, the same wrong answer is the
// server's alone.
func TestWrongAnswersOfAPacedRunRestOnTheDeadline(t *testing.T) {
	const one = `{"jsonrpc":"2.0","id":1,"result":{}}`
	merged := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	got := deadlineFailures(t, func(r *stdioprobe.Run) { r.DeadlinePassed, r.Paced = true, true }, one, merged)
	if len(got) == 0 {
		t.Fatal("a paced run that answered id 2 wrong was charged with nothing")
	}
	for id, d := range got {
		for _, deadline := range d {
			if !deadline {
				t.Errorf("a paced run: %s has a failure resting on no deadline", id)
			}
		}
	}
	got = deadlineFailures(t, func(r *stdioprobe.Run) {}, one, merged)
	for id, d := range got {
		for _, deadline := range d {
			if deadline {
				t.Errorf("an unpaced run: %s has a failure resting on a deadline", id)
			}
		}
	}
}
