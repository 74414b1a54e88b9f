package grading

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
)

// TestBoundTranscript: each event's text is cut at EventTextMax, a
// scenario past its cap keeps one note that counts the rest, and bounding
// twice changes nothing.
func TestBoundTranscript(t *testing.T) {
	var evs []Event
	evs = append(evs, Event{Scenario: "a", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Answer, Text: strings.Repeat("z", EventTextMax+10)}})
	for i := range 10 {
		evs = append(evs, Event{Scenario: "b", Record: event.Record{At: time.Duration(i) * time.Millisecond, Kind: event.Stderr, Text: strings.Repeat("q", 60<<10)}})
	}
	evs = append(evs, Event{Scenario: "c", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Exit, Text: "exit status 0"}})
	got := BoundTranscript(evs)
	if len(got) != 1+4+1+1 {
		t.Fatalf("%d events, want 7", len(got))
	}
	if first := got[0].Text; len(first) > EventTextMax || !strings.HasSuffix(first, fmt.Sprintf("more bytes not kept: an event's text is kept up to %d bytes]", EventTextMax)) {
		t.Errorf("first event of %d bytes ends %q", len(first), first[len(first)-90:])
	}
	note := got[5]
	wantNote := fmt.Sprintf("… [cut: 6 more events of scenario b, %d bytes of text, were counted, not kept: a transcript keeps up to %d bytes and %d events a scenario, %d bytes and %d events in all]",
		6*(60<<10), TranscriptScenarioMax, TranscriptEventsMax, TranscriptMax, TranscriptEventsTotalMax)
	if note.Kind != event.Note || note.Scenario != "b" || note.At != 9*time.Millisecond || note.Text != wantNote {
		t.Errorf("note %+v, want %q at 9 ms", note, wantNote)
	}
	if got[6].Scenario != "c" {
		t.Errorf("last event %+v, want scenario c's exit", got[6])
	}
	if again := BoundTranscript(got); !reflect.DeepEqual(again, got) {
		t.Errorf("bounding twice changed the transcript")
	}
}

// TestBoundResultFields: a check's texts are cut at FieldMax.
func TestBoundResultFields(t *testing.T) {
	res := &Result{Checks: []CheckResult{{ID: "x", Message: strings.Repeat("m", FieldMax+1), Actual: "short"}}}
	BoundResult(res)
	c := res.Checks[0]
	why := fmt.Sprintf("a check's text is kept up to %d bytes", FieldMax)
	if want := strings.Repeat("m", FieldMax-len(why)-48) + fmt.Sprintf("… [cut: %d more bytes not kept: %s]", len(why)+49, why); c.Message != want || len(c.Message) > FieldMax || c.Actual != "short" {
		t.Errorf("message ends %q, actual %q", c.Message[len(c.Message)-80:], c.Actual)
	}
}
