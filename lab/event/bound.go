package event

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/textesc"
)

// The caps on a whole transcript, on top of a scenario's (see TextMax):
// past TranscriptTextMax bytes of text or TranscriptEventsMax events in
// all, a scenario's later events are counted, not kept. A graded result
// and the page of lab run keep their transcripts within them.
const (
	TranscriptTextMax   = 1 << 20
	TranscriptEventsMax = 10_000
)

// Bound returns the events within the transcript caps: each event's text
// cut at TextMax, and, once a scenario has passed ScenarioTextMax bytes or
// ScenarioEventsMax events (or the whole transcript TranscriptTextMax bytes
// or TranscriptEventsMax events), that scenario's later events counted,
// not kept: one note in their place says how many there were and how many
// bytes they held. A transcript within the caps is returned as it is, so
// bounding twice changes nothing.
func Bound(events []Event) []Event {
	type tally struct {
		bytes, events int
		note          int // index in out of the note for dropped events, or -1
		dropped       int
		droppedBytes  int64
		lastAt        time.Duration
	}
	per := map[string]*tally{}
	total, totalEvents := 0, 0
	var out []Event
	changed := false
	for _, e := range events {
		t := per[e.Scenario]
		if t == nil {
			t = &tally{note: -1}
			per[e.Scenario] = t
		}
		if t.note < 0 && isCutNote(e) {
			// The note of an earlier Bound: its scenario's events
			// before it are the ones that Bound kept, and none comes
			// after it; it is kept as it is, and counts against no cap.
			out = append(out, e)
			continue
		}
		// Sizes are of the text the transcript shows (see
		// TranscriptText): what a file holds and a report prints.
		size := len(e.TranscriptText())
		if t.note >= 0 || t.bytes+min(size, TextMax) > ScenarioTextMax || t.events >= ScenarioEventsMax ||
			total+min(size, TextMax) > TranscriptTextMax || totalEvents >= TranscriptEventsMax {
			if t.note < 0 {
				t.note = len(out)
				out = append(out, Event{Scenario: e.Scenario, Record: Record{Kind: Note}})
			}
			t.dropped++
			t.droppedBytes += int64(size)
			t.lastAt = max(t.lastAt, e.At)
			changed = true
			continue
		}
		if size > TextMax {
			e.Text = CutText(e.Text, TextMax-(size-len(e.Text)), fmt.Sprintf("an event's text is kept up to %d bytes", TextMax))
			size = len(e.TranscriptText())
			changed = true
		}
		t.bytes += size
		t.events++
		total += size
		totalEvents++
		t.lastAt = max(t.lastAt, e.At)
		out = append(out, e)
	}
	if !changed {
		return events
	}
	for name, t := range per {
		if t.note < 0 {
			continue
		}
		out[t.note].At = t.lastAt
		out[t.note].Text = fmt.Sprintf(cutNotePrefix+"%s of scenario %s, %s of text, %s counted, not kept: "+
			"a transcript keeps up to %d bytes and %d events a scenario, %d bytes and %d events in all]",
			textesc.CountOf(t.dropped, "more event", "more events"), name, textesc.CountOf(int(t.droppedBytes), "byte", "bytes"), textesc.Pick(t.dropped, "was", "were"), ScenarioTextMax, ScenarioEventsMax, TranscriptTextMax, TranscriptEventsMax)
	}
	return out
}

// cutNotePrefix begins the note Bound puts in place of the events it drops.
const cutNotePrefix = "… [cut: "

// isCutNote reports whether e is the note an earlier Bound put in place of
// the events of e's scenario it dropped.
func isCutNote(e Event) bool {
	return e.Kind == Note && strings.HasPrefix(e.Text, cutNotePrefix) && strings.Contains(e.Text, " of scenario "+e.Scenario+", ")
}
