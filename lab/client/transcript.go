package client

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/textesc"
)

// Line renders the event as one transcript line, as `lab run` prints it:
// "-> " for a chunk sent (its newlines shown as " | "), "stderr " for a log
// line, "<- " for an answer, "-- " for the rest. With withTime, a column with
// the time since the start comes first. Control characters and invalid UTF-8
// from the server are shown escaped, so a transcript never drives a terminal.
func (e Event) Line(withTime bool) string {
	var text string
	switch e.Kind {
	case event.Send:
		text = "-> " + ShowChunk(e.Text)
	case event.Stderr:
		text = "stderr " + Printable(e.Text)
	case event.Answer:
		text = "<- " + Printable(e.Text)
	case event.Exit:
		text = "-- server " + e.Text
	default:
		text = "-- " + Printable(e.Text)
	}
	if withTime {
		return fmt.Sprintf("%6dms %s", e.At.Round(time.Millisecond).Milliseconds(), text)
	}
	return text
}

// ShowChunk shows a chunk on one line: the trailing newline dropped and the
// newlines inside shown as " | ".
func ShowChunk(chunk string) string {
	chunk = strings.TrimRight(chunk, "\n")
	parts := strings.Split(chunk, "\n")
	for i, p := range parts {
		parts[i] = Printable(strings.TrimSuffix(p, "\r"))
	}
	return strings.Join(parts, " | ")
}

// Printable escapes what a terminal would act on, for one line of a
// transcript: control characters (other than tab, but newline and carriage
// return included) as \xNN or \u00NN, bytes that are not UTF-8 as \xNN,
// and invisible characters that reorder or hide text as \uNNNN (see
// textesc.Line).
func Printable(s string) string { return textesc.Line(s) }
