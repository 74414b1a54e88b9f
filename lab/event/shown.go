package event

import (
	"fmt"
	"net/http"
	"strings"
)

// This file is the one edge where an event the rig saw becomes the words
// a client lesson's transcript has always printed for it: the kinds
// ToServer, FromServer and Rig, and a text that begins with the server's
// alias and connection, "docs#1 {...}". Files, reports and `lab run` show
// these words; the lab itself reads the fields.

// OfRig reports whether the record is one the rig saw: of a server the
// lab played for a client under test (see Played). An Event has it, and
// TranscriptKind and TranscriptText, from its Record.
func (r Record) OfRig() bool { return r.Played }

// TranscriptKind is the kind a transcript shows the record as: for one the
// rig saw, ToServer for what the client sent a server (a line, an HTTP
// request), FromServer for what a server sent back (a line, an HTTP
// answer's status and messages) and Rig for the rest (a start, an end, a
// request held or cut); for any other event, its kind.
func (r Record) TranscriptKind() Kind {
	if !r.OfRig() {
		return r.Kind
	}
	switch r.Kind {
	case Send, Post:
		return ToServer
	case Answer, Status:
		return FromServer
	}
	return Rig
}

// TranscriptText is the text a transcript shows for the record: for one
// the rig saw, its server's alias and connection ("docs#1") and then the
// line; an HTTP request's MCP headers in brackets before its body (see
// HeaderSummary), an answer's status as "HTTP 200" before its content
// type, and the rig's word for a happening of its own (see RigWord). For
// any other event, its text.
func (r Record) TranscriptText() string {
	if !r.OfRig() {
		return r.Text
	}
	where := fmt.Sprintf("%s#%d", r.Server, r.Conn)
	var text string
	switch r.Kind {
	case Send, Answer:
		text = where + " " + r.Text
	case Post:
		text = where + " [" + HeaderSummary(r.Header) + "] " + r.Text
	case Status:
		text = fmt.Sprintf("%s HTTP %d %s", where, r.Status, r.Text)
	default:
		text = where + " " + RigWord(r.Kind) + " " + r.Text
	}
	return strings.TrimSpace(text)
}

// RigWord is a kind of the rig's as a transcript names it: "eof" for the
// end of a stdio server's stdin (Close), "gone" for the end of a
// connection or an exchange (Exit), and the kind itself for the rest, as
// the rig has always said.
func RigWord(k Kind) string {
	switch k {
	case Close:
		return "eof"
	case Exit:
		return "gone"
	}
	return string(k)
}

// rigKindOf is the kind RigWord names word.
func rigKindOf(word string) Kind {
	switch word {
	case "eof":
		return Close
	case "gone":
		return Exit
	}
	return Kind(word)
}

// mcpHeaders are the headers HeaderSummary names, in order; the last one
// is named only when it is there.
var mcpHeaders = [...]string{"Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name"}

// HeaderSummary names the MCP headers of a POST and their values, and
// those missing: "Mcp-Protocol-Version: 2026-07-28; Mcp-Method missing".
func HeaderSummary(h http.Header) string {
	var parts []string
	for _, k := range mcpHeaders {
		if v, ok := h[k]; ok {
			parts = append(parts, fmt.Sprintf("%s: %s", k, strings.Join(v, ",")))
		} else if k != "Mcp-Name" {
			parts = append(parts, k+" missing")
		}
	}
	return strings.Join(parts, "; ")
}
