package event_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/event"
)

// TestCutText holds the marker's exact words, the rune boundary and that a
// text already cut is not cut again.
func TestCutText(t *testing.T) {
	if got := event.CutText("short", 100, "why"); got != "short" {
		t.Errorf("a text within the cap: %q", got)
	}
	s := strings.Repeat("a", 200)
	got := event.CutText(s, 100, "a test")
	want := strings.Repeat("a", 100-len("a test")-48) + "… [cut: 154 more bytes not kept: a test]"
	if got != want {
		t.Errorf("cut:\n got %q\nwant %q", got, want)
	}
	if len(got) > 100 {
		t.Errorf("the cut text is %d bytes, over the cap of 100", len(got))
	}
	if again := event.CutText(got, 100, "a test"); again != got {
		t.Errorf("cut twice:\n got %q\nwant %q", again, got)
	}
	// "é" is two bytes: a cut never splits it.
	wide := strings.Repeat("é", 100)
	for max := 60; max < 70; max++ {
		if cut := event.CutText(wide, max, "x"); !utf8.ValidString(cut) || len(cut) > max {
			t.Errorf("cap %d: %q (%d bytes, valid UTF-8 %v)", max, cut, len(cut), utf8.ValidString(cut))
		}
	}
}

// TestBoundWithinCaps returns a transcript within the caps as it is.
func TestBoundWithinCaps(t *testing.T) {
	in := []event.Event{{Scenario: "a", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Send, Text: "x"}}, {Scenario: "b", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Answer, Text: "y"}}}
	out := event.Bound(in)
	if &out[0] != &in[0] || !reflect.DeepEqual(out, in) {
		t.Errorf("a transcript within the caps changed: %+v", out)
	}
}

// TestBoundCountsWhatItDrops keeps a scenario's first ScenarioEventsMax
// events, then one note, at the time of the last dropped event, with
// exact words; another scenario is kept whole, and bounding again changes
// nothing.
func TestBoundCountsWhatItDrops(t *testing.T) {
	var in []event.Event
	for i := range event.ScenarioEventsMax + 3 {
		in = append(in, event.Event{Scenario: "flood", Record: event.Record{At: time.Duration(i) * time.Millisecond, Kind: event.Answer, Text: "ab"}})
	}
	in = append(in, event.Event{Scenario: "calm", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Send, Text: "hi"}})
	out := event.Bound(in)
	if len(out) != event.ScenarioEventsMax+2 {
		t.Fatalf("%d events kept, want %d", len(out), event.ScenarioEventsMax+2)
	}
	note := out[event.ScenarioEventsMax]
	want := fmt.Sprintf("… [cut: 3 more events of scenario flood, 6 bytes of text, were counted, not kept: a transcript keeps up to %d bytes and %d events a scenario, %d bytes and %d events in all]",
		event.ScenarioTextMax, event.ScenarioEventsMax, event.TranscriptTextMax, event.TranscriptEventsMax)
	if note.Kind != event.Note || note.Scenario != "flood" || note.At != time.Duration(event.ScenarioEventsMax+2)*time.Millisecond || note.Text != want {
		t.Errorf("the note: %+v\nwant text %q at %d ms", note, want, event.ScenarioEventsMax+2)
	}
	if last := out[len(out)-1]; !reflect.DeepEqual(last, in[len(in)-1]) {
		t.Errorf("the other scenario's event: %+v", last)
	}
	if again := event.Bound(out); !reflect.DeepEqual(again, out) {
		t.Error("bounding twice changed the transcript")
	}
}

// TestBoundCutsLongText cuts one event's text at TextMax and keeps it.
func TestBoundCutsLongText(t *testing.T) {
	in := []event.Event{{Scenario: "s", Record: event.Record{Kind: event.Answer, Text: strings.Repeat("z", event.TextMax+10)}}}
	out := event.Bound(in)
	if len(out) != 1 || len(out[0].Text) > event.TextMax || !strings.HasSuffix(out[0].Text, fmt.Sprintf("not kept: an event's text is kept up to %d bytes]", event.TextMax)) {
		t.Errorf("got %d events, text of %d bytes ending %q", len(out), len(out[0].Text), out[0].Text[max(0, len(out[0].Text)-80):])
	}
	if in[0].Text == out[0].Text {
		t.Error("the input was not copied: its text is cut too")
	}
}

// TestBoundWholeTranscript stops keeping events once the whole transcript
// holds TranscriptEventsMax, scenario by scenario, and bounding again
// changes nothing.
func TestBoundWholeTranscript(t *testing.T) {
	var in []event.Event
	for _, name := range []string{"a", "b", "c", "d"} {
		for i := range event.ScenarioEventsMax {
			in = append(in, event.Event{Scenario: name, Record: event.Record{At: time.Duration(i) * time.Millisecond, Kind: event.Send, Text: "x"}})
		}
	}
	out := event.Bound(in)
	kept := map[string]int{}
	var notes []string
	for _, e := range out {
		if e.Kind == event.Note {
			notes = append(notes, e.Scenario+": "+e.Text[:strings.Index(e.Text, " of text")])
			continue
		}
		kept[e.Scenario]++
	}
	want := map[string]int{"a": 4000, "b": 4000, "c": 2000}
	if !reflect.DeepEqual(kept, want) {
		t.Errorf("kept %v, want %v", kept, want)
	}
	wantNotes := []string{"c: … [cut: 2000 more events of scenario c, 2000 bytes", "d: … [cut: 4000 more events of scenario d, 4000 bytes"}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes %q\nwant %q", notes, wantNotes)
	}
	if again := event.Bound(out); !reflect.DeepEqual(again, out) {
		t.Error("bounding twice changed the transcript")
	}
}
