// Package event is the one set of words for what the lab sees happen
// between a client and a server: the scripted client's transcript
// (lab/stdioprobe), a recorded session (lab/capture) and the rig's record
// (lab/rig) all say what an event is with a Kind of this package. One
// thing has one kind wherever it is seen: a line a client sent a server is
// Send whether the scripted client wrote it on a pipe or the rig read it
// from a relay. The scripted client, the rig and an HTTP lesson keep what
// they see as a Record, one struct for every transport, and a graded
// result's transcript keeps each as an Event of its scenario, which embeds
// the Record rather than copying its fields.
//
// Where a format that people and files already read spells a kind its own
// way (a session's "from": "client", the rig's "eof" in a transcript), the
// package that writes the format maps the kind at its edge, so the bytes
// stay as they were.
package event

// Kind says what an event is.
type Kind string

// What crossed between the client and the server.
const (
	// Send is what a client sent a server: a chunk written to its stdin,
	// a line on a stdio connection.
	Send Kind = "send"
	// Answer is what a server sent back: a line on its stdout or its
	// stdio connection, one message of an HTTP answer (a JSON body, or one
	// event's data).
	Answer Kind = "answer"
	// Post is an HTTP request: its headers and its body.
	Post Kind = "post"
	// Status is an HTTP answer's status and content type.
	Status Kind = "status"
	// Stderr is a line a server wrote on its stderr.
	Stderr Kind = "stderr"
)

// How a connection went, and what the recorder saw or did.
const (
	// Start: the client started a stdio server.
	Start Kind = "start"
	// Close: the client closed the server's stdin.
	Close Kind = "close"
	// Exit: the server ended: its process, a stdio connection, an HTTP
	// exchange.
	Exit Kind = "exit"
	// Note is something the recorder observed: a timeout, a cap, a line
	// too long.
	Note Kind = "note"
	// Held: the rig holds a request for good, and never answers it.
	Held Kind = "held"
	// Cut: the rig broke an answer off.
	Cut Kind = "cut"
	// Refused is an HTTP request the rig answered itself, because its
	// body broke a bound (too long, too slow).
	Refused Kind = "refused"
	// NotKept closes the events of a server whose record was full: how
	// many events and bytes were counted and not kept.
	NotKept Kind = "not-kept"
)

// The words a client lesson's transcript shows for the traffic between a
// client under test and the servers the lab plays for it (see
// Record.TranscriptKind). No record the lab makes has these kinds: the
// rig's records have their own (Send, Post, Answer, Status, Start, ...),
// and a file or a report shows these in their place.
const (
	ToServer   Kind = "to-server"   // a message the client sent a server
	FromServer Kind = "from-server" // a message a server sent the client
	Rig        Kind = "rig"         // a server started or ended, a request held or cut
)
