package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// TestEveryFormatIsBounded: a result as a flooding client's could make it
// if nothing bounded it (two hundred 512 KiB answers, a check message of
// 8 MiB, control characters that escaping makes longer) gives a report of
// a few MiB at most in every format, and each cut says so.
func TestEveryFormatIsBounded(t *testing.T) {
	line := strings.Repeat("\x1bx", 256<<10)
	r := &grading.Result{Lesson: 3, Gradable: true, Score: 1, MaxScore: 14,
		Outcome: grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: strings.Repeat("d", 8<<20)},
		Checks: []grading.CheckResult{{ID: "answers", Title: "t", Status: grading.StatusFail, MaxPoints: 1,
			Message: strings.Repeat("m", 8<<20), Expected: "e", Actual: line}}}
	for i := range 200 {
		r.Transcript = append(r.Transcript, grading.Event{Scenario: []string{"a", "b", "c"}[i%3], Record: event.Record{At: time.Duration(i) * time.Millisecond, Kind: event.Answer, Text: line}})
	}
	for _, f := range Formats() {
		var out, summary bytes.Buffer
		if err := Write(&out, f, r, Options{Summary: &summary, Rand: strings.NewReader(strings.Repeat("k", 64))}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Logf("%s: %d bytes", f, out.Len()+summary.Len())
		if n := out.Len() + summary.Len(); n > 8<<20 {
			t.Errorf("%s: %d bytes, want a few MiB at most", f, n)
		}
		if f == FormatJSON && !strings.Contains(out.String(), "counted, not kept") {
			t.Errorf("json: no note says the transcript was cut")
		}
	}
	// The result given is not changed.
	if len(r.Transcript) != 200 || len(r.Checks[0].Message) != 8<<20 {
		t.Errorf("Write changed the result it was given")
	}
}
