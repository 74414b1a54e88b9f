package timeline

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/textesc"
)

// Group is the events of one scenario of a transcript.
type Group struct {
	Name   string
	Events []event.Event
}

// Groups groups a transcript by scenario, in the order each scenario
// first appears, keeping the order of events within each.
func Groups(events []event.Event) []Group {
	var out []Group
	index := map[string]int{}
	for _, e := range events {
		i, ok := index[e.Scenario]
		if !ok {
			i = len(out)
			index[e.Scenario] = i
			out = append(out, Group{Name: e.Scenario})
		}
		out[i].Events = append(out[i].Events, e)
	}
	return out
}

// Clean returns a copy of events, bounded by bound before each text is
// cleaned (so a huge transcript is never copied whole) and again after
// (escapes make text longer), in which every text shows what a terminal,
// a log parser or an XML reader could act on as a visible escape (see
// textesc.Visible).
func Clean(events []event.Event, bound func([]event.Event) []event.Event) []event.Event {
	if events == nil {
		return nil
	}
	events = bound(events)
	out := make([]event.Event, len(events))
	for i, e := range events {
		// The record is copied whole and its strings cleaned: a string
		// field a transport adds to Record is cleaned here too.
		r := e.Record
		r.Kind = event.Kind(textesc.Visible(string(r.Kind)))
		r.Text = textesc.Visible(r.Text)
		r.Server = textesc.Visible(r.Server)
		r.Header = cleanHeader(r.Header)
		out[i] = event.Event{Scenario: textesc.Visible(e.Scenario), Record: r}
	}
	return bound(out)
}

// cleanHeader is a copy of h with every name and value cleaned (see
// textesc.Visible); nil for nil.
func cleanHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		clean := make([]string, len(vs))
		for i, v := range vs {
			clean[i] = textesc.Visible(v)
		}
		k = textesc.Visible(k)
		out[k] = append(out[k], clean...)
	}
	return out
}

// EventLine writes one event on one line: its time, an arrow or a word
// for its kind, and its text with esc applied (not to the arrows around
// it). Newlines inside a chunk are shown as " | ", as `lab run` shows them.
func EventLine(e event.Event, esc func(string) string) string {
	text := esc(OneLine(shown(e), " | "))
	var body string
	switch kind := kindOf(e); kind {
	case event.Send:
		body = "-> " + text
	case event.Answer:
		body = "<- " + text
	case event.Stderr:
		body = "stderr " + text
	case event.Close:
		body = "close stdin"
		if text != "" {
			body = "close " + text
		}
	default:
		body = strings.TrimSpace(esc(string(kind)) + " " + text)
	}
	return fmt.Sprintf("%6dms  %s", e.At.Milliseconds(), strings.TrimRight(body, " "))
}

// TranscriptBlock is a scenario's events, one a line as EventLine writes
// them with esc, cut before it passes max bytes with a line that says how
// many events are not shown.
func TranscriptBlock(sc Group, max int, esc func(string) string) string {
	var lines strings.Builder
	for j, e := range sc.Events {
		line := EventLine(e, esc) + "\n"
		if lines.Len()+len(line) > max {
			fmt.Fprintf(&lines, "… [cut: %d more events not shown]\n", len(sc.Events)-j)
			break
		}
		lines.WriteString(line)
	}
	return lines.String()
}

// OneLine puts s on one line: every newline becomes sep and tabs become
// spaces.
func OneLine(s, sep string) string {
	s = strings.ReplaceAll(s, "\n", sep)
	return strings.ReplaceAll(s, "\t", " ")
}

// clipRunes cuts s to at most max runes, marker included, ending it with
// "…". It is for short one-line labels.
func clipRunes(s string, max int) string { return ClipRunes(s, max, "…") }

// ClipRunes cuts s to at most max runes, marker included, ending it with
// marker. A max too small for the marker leaves nothing.
func ClipRunes(s string, max int, marker string) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	keep := max - utf8.RuneCountInString(marker)
	if keep < 0 {
		return ""
	}
	n := 0
	for i := range s {
		if n == keep {
			return s[:i] + marker
		}
		n++
	}
	return s
}
