package timeline

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
)

// evidenceEvents are two scenarios that each send the same two lines and
// note that a wait ran out; only b's note is marked as one, and a's carries
// every word the timeline once read deadlines from.
func evidenceEvents() []event.Event {
	var events []event.Event
	for _, sc := range []string{"a", "b"} {
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		events = append(events,
			event.Event{Scenario: sc, Record: event.Record{At: ms(0), Kind: event.Send, Text: `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"}},
			event.Event{Scenario: sc, Record: event.Record{At: ms(1), Kind: event.Send, Text: `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r\n"}},
			event.Event{Scenario: sc, Record: event.Record{At: ms(2), Kind: event.Answer, Text: `{"jsonrpc":"2.0","id":1,"result":{}}`}},
		)
	}
	events = append(events,
		event.Event{Scenario: "a", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Note, Text: "no answer to id 2 within 5ms: timed out, deadline, gave up, did not end"}},
		event.Event{Scenario: "b", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Note, Text: "the wait is over", Deadline: true}},
	)
	return events
}

// TestDeadlinesFromTheField: a note is drawn as a deadline when its
// record says a wait ran out, whatever its words say, and a note whose
// words speak of deadlines is not one when its record does not say so (a
// note read back from an older file, say).
func TestDeadlinesFromTheField(t *testing.T) {
	p, _ := Draw(Clean(evidenceEvents(), event.Bound), Judged{})
	for _, sc := range p.Scenarios {
		want := 0
		if sc.Name == "b" {
			want = 1
		}
		if len(sc.Deadlines) != want {
			t.Errorf("scenario %s: %d deadlines drawn, want %d", sc.Name, len(sc.Deadlines), want)
		}
		for _, m := range sc.Marks {
			if got := strings.Contains(m.Class, " deadline"); got != (sc.Name == "b" && m.Kind == string(event.Note)) {
				t.Errorf("scenario %s, event %d (%s): class %q", sc.Name, m.Seq, m.Kind, m.Class)
			}
		}
	}
}

// TestEvidenceFromTheFields: a failed check whose answer never came links
// to the line it is about (a line sent with a CRLF end included) and the
// notes of the first scenario its evidence came from, and to nothing of
// another scenario that sent the same line; with an actual answer it links
// to the events that are the answer, in that scenario first.
func TestEvidenceFromTheFields(t *testing.T) {
	events := Clean(evidenceEvents(), event.Bound)
	checks := []Check{
		{ID: "missing", Scenarios: []string{"b", "a"}, Line: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, Actual: "(nothing)", Failed: true},
		{ID: "wrong", Scenarios: []string{"b"}, Actual: `{"result":{},"id":1,"jsonrpc":"2.0"}`, Failed: true},
		{ID: "nowhere", Line: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, Failed: true},
		{ID: "passed", Scenarios: []string{"a"}, Line: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
	}
	_, refs := Draw(events, Judged{Checks: checks})
	got := make([]string, len(refs))
	for i, rs := range refs {
		var hrefs []string
		for _, r := range rs {
			hrefs = append(hrefs, r.Href)
		}
		got[i] = strings.Join(hrefs, " ")
	}
	// Scenario b is the second: its events are m-1-*, the CRLF line is
	// event 2 (m-1-1) and the note event 4 (m-1-3).
	want := []string{"m-1-1 m-1-3", "m-1-2 m-0-2", "", ""}
	if b, _ := json.Marshal(got); string(b) != mustJSON(want) {
		t.Errorf("evidence %s, want %s", b, mustJSON(want))
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
