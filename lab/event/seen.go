package event

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/textesc"
)

// Record is one thing the lab saw happen, timed, with what it knows of it
// as fields of their own: a chunk the scripted client wrote on a server's
// stdin, a line of a server's stdout or stderr, a line between a client
// under test and a stdio server the rig plays, an HTTP exchange's request,
// status and messages, a note of the recorder's. It is the one record of
// every transport: the scripted client (lab/stdioprobe), the rig (lab/rig) and
// an HTTP lesson's exchanges all keep Records, and a transport the lab
// adds later adds a field here, not a struct of its own. Whoever reads a
// Record reads its fields, never a text made of them; the words a
// transcript prints for it are made from the fields at the edge that
// prints them. A transcript's Event embeds a Record (see Event and In),
// so a field added here is in every transcript without a copy.
type Record struct {
	// At is the time since the recorder started: since the scripted
	// client started the server, or since the rig started.
	At time.Duration `json:"at"`
	// Kind says what happened, in the lab's one set of kinds.
	Kind Kind `json:"kind"`
	// Text is what crossed, exactly as it crossed: the chunk (its
	// newlines kept), the line, an HTTP body or one event's data, an
	// answer's content type, or a few words of the recorder's.
	Text string `json:"text"`
	// Server names the server the record is about, when there are more
	// than one: the alias of a server the lab plays for a client under
	// test (see Played), a copy of a student's server; "" for the one
	// server the scripted client started.
	Server string `json:"server,omitempty"`
	// Conn numbers the server's connections from 1: a stdio server's
	// starts, an HTTP server's requests; 0 when the record is about no
	// one connection.
	Conn int `json:"conn,omitempty"`
	// Header is an HTTP request's headers, on a Post.
	Header http.Header `json:"header,omitempty"`
	// Status is an HTTP answer's status code, on a Status (and on a
	// Refused, the status the rig answered with).
	Status int `json:"status,omitempty"`
	// Played says the lab played Server for a client under test: the
	// record is the rig's, of the traffic between the student's client
	// and a server of the lab's, and a transcript shows it in the rig's
	// words (see TranscriptKind).
	Played bool `json:"played,omitempty"`
	// Deadline says, on a Note, that the note says a wait of the lab's
	// ran out: an answer, an exit, a read, a ready line that did not come
	// in time. The recorder that writes the note sets it; whoever draws or
	// judges the note reads it here, never from the note's words.
	Deadline bool `json:"deadline,omitempty"`
}

// In is the record as an event of the scenario's transcript, its time
// cut to whole milliseconds (toward zero, as Duration.Milliseconds cuts),
// the precision a transcript's file keeps.
func (r Record) In(scenario string) Event {
	r.At = r.At.Truncate(time.Millisecond)
	return Event{Scenario: scenario, Record: r}
}

// Line renders the record as one line of the scripted client's
// transcript, as `lab run` prints it: "-> " for a chunk sent (its newlines
// shown as " | "), "stderr " for a log line, "<- " for an answer, "-- "
// for the rest, and for what the rig saw its transcript's text (see
// TranscriptText). With withTime, a column with the time since the start
// comes first. Control characters and invalid UTF-8 from the server are
// shown escaped (see textesc.Line), so a transcript never drives a
// terminal.
func (r Record) Line(withTime bool) string {
	var text string
	switch {
	case r.OfRig():
		text = "-- " + textesc.Line(r.TranscriptText())
	case r.Kind == Send:
		text = "-> " + ShowChunk(r.Text)
	case r.Kind == Stderr:
		text = "stderr " + textesc.Line(r.Text)
	case r.Kind == Answer:
		text = "<- " + textesc.Line(r.Text)
	case r.Kind == Exit:
		text = "-- server " + r.Text
	default:
		text = "-- " + textesc.Line(r.Text)
	}
	if withTime {
		return fmt.Sprintf("%6dms %s", r.At.Round(time.Millisecond).Milliseconds(), text)
	}
	return text
}

// ShowChunk shows a chunk on one line: the trailing newline dropped and the
// newlines inside shown as " | ", each line escaped (see textesc.Line).
func ShowChunk(chunk string) string {
	chunk = strings.TrimRight(chunk, "\n")
	parts := strings.Split(chunk, "\n")
	for i, p := range parts {
		parts[i] = textesc.Line(strings.TrimSuffix(p, "\r"))
	}
	return strings.Join(parts, " | ")
}
