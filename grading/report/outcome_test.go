package report

import (
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// TestOutcomeNamesTheProgram: the outcome's words name what the result
// says the student wrote, whatever the lesson's number; a result with no
// program (an old results file) is a client's when its transcript has the
// rig's events, else a server's.
func TestOutcomeNamesTheProgram(t *testing.T) {
	rig := []grading.Event{{Scenario: "s", Record: event.Record{Kind: event.Rig, Text: "tickets#1 started"}}}
	send := []grading.Event{{Scenario: "s", Record: event.Record{Kind: event.Send, Text: "x\n"}}}
	for _, c := range []struct {
		name string
		r    grading.Result
		want string
	}{
		{"data client lesson 98", grading.Result{Lesson: 98, Program: "client", Transcript: send}, "the client ended before the grader was done"},
		{"lesson 3 as a server", grading.Result{Lesson: 3, Program: "server", Transcript: rig}, "the server ended before the grader was done"},
		{"old file, rig events", grading.Result{Lesson: 7, Transcript: rig}, "the client ended before the grader was done"},
		{"old file, lesson 3 without rig events", grading.Result{Lesson: 3, Transcript: send}, "the server ended before the grader was done"},
		{"old file, no transcript", grading.Result{Lesson: 1}, "the server ended before the grader was done"},
	} {
		c.r.Outcome.Kind = grading.OutcomeExited
		if got := outcomeMeaning(&c.r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
