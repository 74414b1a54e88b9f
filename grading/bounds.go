package grading

import (
	"fmt"

	"github.com/mcplab/mcplab/lab/event"
)

// The caps on what a graded program writes and on what a result keeps of
// it. A client's streams get the same caps as a server's (see
// stdioprobe.Options): each of stdout and stderr is capped per scenario at
// Options.MaxOutput (8 MiB when it is 0; grade-class gives 256 KiB), and
// one line at LineMax. What comes past a cap is counted, not kept.
// Every result, a server's or a client's, keeps at most
// TranscriptScenarioMax of transcript text a scenario and TranscriptMax a
// student, each event's text cut at EventTextMax, and each check's
// message, expected and actual cut at FieldMax; a cut says how much was
// left out.
const (
	// LineMax is the longest line of a program's stdout or stderr that is
	// kept; the rest of a longer line is read in pieces, counted and
	// dropped (the server's stdioprobe.Options.MaxLine).
	LineMax = 1 << 20
	// DefaultStreamMax caps each output stream of each scenario when
	// Options.MaxOutput is 0.
	DefaultStreamMax = 8 << 20
	// StreamLinesMax caps the lines kept of each stream of a client in each
	// scenario.
	StreamLinesMax = 10_000
	// EventTextMax caps the text of one transcript event of a result.
	EventTextMax = event.TextMax
	// TranscriptScenarioMax caps the transcript text of one scenario, and
	// TranscriptMax that of a whole result; TranscriptEventsMax caps the
	// events of one scenario, and TranscriptEventsTotalMax a result's.
	TranscriptScenarioMax    = event.ScenarioTextMax
	TranscriptMax            = event.TranscriptTextMax
	TranscriptEventsMax      = event.ScenarioEventsMax
	TranscriptEventsTotalMax = event.TranscriptEventsMax
	// FieldMax caps a check's message, expected and actual in a result.
	FieldMax = 16 << 10
)

// CutText cuts s to at most max bytes, marker included, and says how
// many bytes were left out and why (see event.CutText).
func CutText(s string, max int, why string) string { return event.CutText(s, max, why) }

// BoundTranscript returns the events within the transcript caps: each
// event's text cut at EventTextMax, and, once a scenario has passed
// TranscriptScenarioMax bytes or TranscriptEventsMax events (or the whole
// transcript TranscriptMax bytes or TranscriptEventsTotalMax events), that
// scenario's later events counted, not kept: one note in their place says
// how many there were and how many bytes they held. A transcript within the
// caps is returned as it is, so bounding twice changes nothing.
func BoundTranscript(events []Event) []Event { return event.Bound(events) }

// boundResult keeps a result within the caps: its transcript (see
// BoundTranscript) and each check's message, expected and actual, cut at
// FieldMax.
func BoundResult(res *Result) {
	res.Transcript = BoundTranscript(res.Transcript)
	why := fmt.Sprintf("a check's text is kept up to %d bytes", FieldMax)
	for i := range res.Checks {
		c := &res.Checks[i]
		c.Message = CutText(c.Message, FieldMax, why)
		c.Expected = CutText(c.Expected, FieldMax, why)
		c.Actual = CutText(c.Actual, FieldMax, why)
	}
	res.Problem = CutText(res.Problem, FieldMax, why)
	res.Outcome.Detail = CutText(res.Outcome.Detail, FieldMax, why)
}
