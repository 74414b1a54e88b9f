package event

import (
	"net/http"
	"time"
)

// Record is one thing the lab saw happen, timed, with what it knows of it
// as fields of their own: a chunk the scripted client wrote on a server's
// stdin, a line of a server's stdout or stderr, a line between a client
// under test and a stdio server the rig plays, an HTTP exchange's request,
// status and messages, a note of the recorder's. It is the one record of
// every transport: the scripted client (lab/client), the rig (lab/rig) and
// an HTTP lesson's exchanges all keep Records, and a transport the lab
// adds later adds a field here, not a struct of its own. Whoever reads a
// Record reads its fields, never a text made of them; the words a
// transcript prints for it are made from the fields at the edge that
// prints them (see Event).
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
	// Server is the alias of the server the lab played that the record
	// is about, for what the rig saw; "" for the scripted client's own
	// server, which has no alias.
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
}

// In is the record as an event of the scenario's transcript, its time in
// whole milliseconds.
func (r Record) In(scenario string) Event {
	return Event{Scenario: scenario, AtMS: r.At.Milliseconds(), Kind: r.Kind, Text: r.Text,
		Server: r.Server, Conn: r.Conn, Header: r.Header, Status: r.Status}
}
