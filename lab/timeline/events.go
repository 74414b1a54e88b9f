package timeline

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// This file is the one place the package reads what an event says: the
// kind a transcript shows it as, the server of an event the rig saw, the
// message it carried and whether a note says a wait ran out (fields of
// the event's own), the JSON-RPC message a line holds, and the lines the
// grader's chunks on stdin make. The rest of the package asks these
// functions and never looks inside a text itself (beyond drawing it).

// ClientTranscript reports whether events are a client lesson's: they
// hold the rig's events (what the client sent the servers the lab played,
// and what they answered). Its lanes and joins are a client's.
func ClientTranscript(events []event.Event) bool {
	for _, e := range events {
		switch kindOf(e) {
		case event.ToServer, event.FromServer, event.Rig:
			return true
		}
	}
	return false
}

// kindOf is the kind the timeline files an event under, the one its
// transcript shows (see event.Event.TranscriptKind): what the rig saw is
// ToServer, FromServer or Rig, never one of the grader's own streams.
func kindOf(e event.Event) event.Kind { return e.TranscriptKind() }

// shown is an event's text as its transcript shows it (see
// event.Event.TranscriptText): what the timeline draws and lists.
func shown(e event.Event) string { return e.TranscriptText() }

// serverOf is the alias of the server the lab played that an event the
// rig saw is about, or "" for any other event.
func serverOf(e event.Event) string { return e.Server }

// httpCopy is the copy of a student's HTTP server (an HTTP server
// lesson's "a" or "b") an event is about, or "" for any other event: the
// rig's events name a server the lab played, and a stdio server's events
// name none.
func httpCopy(e event.Event) string {
	if e.OfRig() {
		return ""
	}
	return e.Server
}

// deadlineRanOut reports whether e is a note of the grader's that says a
// wait ran out: the recorder that wrote it set its Deadline field (see
// event.Record). Its words are not read. A note from a file an older
// version wrote, before notes had the field, is not marked: the timeline
// of such a file draws no deadline lines.
func deadlineRanOut(e event.Event) bool {
	return e.Kind == event.Note && !e.OfRig() && e.Deadline
}

// payload is the message an event carried: for one the rig saw, the line
// or body as it crossed (never its server, its connection or an HTTP
// request's headers, which are fields of their own); for any other, its
// text. Spaces around it are dropped.
func payload(e event.Event) string { return strings.TrimSpace(e.Text) }

// message is the id and method of a JSON-RPC message, when the text is one.
type message struct {
	object   bool
	hasID    bool
	id       string // the id re-encoded, so 1 and 1.0 differ but spacing does not
	method   string
	response bool
}

// lineMessage is the message of a line the program wrote on stdout: its
// whole text.
func lineMessage(e event.Event) message { return parseMessage(e.Text) }

// rigMessage is the message of an event the rig saw: the line or body
// of what crossed, for a line or an HTTP request or answer message; none
// for an answer's status or a happening of the rig's own.
func rigMessage(e event.Event) message {
	switch e.Kind {
	case event.Send, event.Post, event.Answer:
		return parseMessage(payload(e))
	}
	return message{}
}

// parseMessage reads the id and method of the JSON-RPC message s; a text
// that is not a JSON object gives the zero message.
func parseMessage(s string) message {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return message{}
	}
	out := message{object: true}
	if raw, ok := m["id"]; ok {
		out.hasID = true
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			out.id = b.String()
		}
	}
	if raw, ok := m["method"]; ok {
		_ = json.Unmarshal(raw, &out.method)
	}
	_, res := m["result"]
	_, errf := m["error"]
	out.response = res || errf
	return out
}

// canonicalJSON is s decoded and encoded again (object keys sorted), or ""
// when s is not JSON.
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// newlineOffsets is the offset of each newline inside a chunk's text.
func newlineOffsets(e event.Event) []int {
	var at []int
	for i := 0; i < len(e.Text); i++ {
		if e.Text[i] == '\n' {
			at = append(at, i)
		}
	}
	return at
}

// endsInsideLine reports whether a chunk ends inside a line: the rest of
// the line comes in a later write.
func endsInsideLine(e event.Event) bool {
	return !strings.HasSuffix(e.Text, "\n") && e.Text != ""
}

// stdinLine is one line of what the grader wrote, with the writes that hold it.
type stdinLine struct {
	n          int
	text       string
	first      int // index in the scenario of the write it starts in
	last       int // index of the write holding its newline
	endOffset  int // offset of the newline inside the last write
	msg        message
	answeredBy int // index of the answer joined to it, or -1
}

// splitLines rebuilds the lines the grader wrote from the chunks of a
// scenario, noting the writes each one spans. Blank lines are left out.
func splitLines(events []event.Event) []*stdinLine {
	var lines []*stdinLine
	var pending []byte
	start := -1
	n := 0
	for ei, e := range events {
		if e.Kind != event.Send {
			continue
		}
		text := e.Text
		for off := 0; off < len(text); {
			if start < 0 {
				start = ei
			}
			nl := strings.IndexByte(text[off:], '\n')
			if nl < 0 {
				pending = append(pending, text[off:]...)
				break
			}
			pending = append(pending, text[off:off+nl]...)
			n++
			l := &stdinLine{n: n, text: string(pending), first: start, last: ei, endOffset: off + nl, answeredBy: -1}
			l.msg = parseMessage(l.text)
			if strings.TrimSpace(l.text) != "" {
				lines = append(lines, l)
			}
			pending = pending[:0]
			start = -1
			off += nl + 1
		}
	}
	return lines
}
