package event

import (
	"fmt"
	"unicode/utf8"
)

// Event is one timed happening of a run, as a transcript keeps it: what
// a graded result lists, what lab run shows and draws. It is a Record of a
// scenario: the Record is embedded, not copied, so a field a transport adds
// to Record is an Event's too. A file holds an event's time in whole
// milliseconds (see MarshalJSON), and Record.In makes an event of a record
// at that precision.
type Event struct {
	// Scenario names the scenario the event belongs to.
	Scenario string `json:"scenario"`
	// Record is what was seen, its At the time since the scenario
	// started.
	Record
}

// The caps on what a transcript keeps of one scenario: each event's text
// is cut at TextMax, and past ScenarioTextMax bytes of text or
// ScenarioEventsMax events the rest is counted, not kept.
const (
	// TextMax caps the text of one event.
	TextMax = 64 << 10
	// ScenarioTextMax caps the text of one scenario's events.
	ScenarioTextMax = 256 << 10
	// ScenarioEventsMax caps the events of one scenario.
	ScenarioEventsMax = 4_000
)

// CutText cuts s to at most max bytes, marker included, on a rune boundary,
// and says how many bytes were left out and why: "… [cut: 1234 more bytes
// not kept: why]". A text it cut is not cut again.
func CutText(s string, max int, why string) string {
	if len(s) <= max {
		return s
	}
	cut := max - len(why) - 48 // room for the marker
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [cut: %d more bytes not kept: %s]", len(s)-cut, why)
}
