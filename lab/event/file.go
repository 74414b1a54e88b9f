package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// An event in a file (a graded result's transcript) keeps the four keys
// every version wrote, "scenario", "at_ms" (the Record's At in whole
// milliseconds), "kind" and "text", with the words a transcript shows (see
// TranscriptKind and TranscriptText), so a reader of the format sees the
// bytes it always saw. An event with fields of a Record's beyond those
// adds one key, "record", that holds them: the server's alias, the
// connection, an HTTP request's headers, an answer's status, that a note
// says a wait ran out, and, where the transcript's words differ from the
// event's own, its kind and its text as they crossed. A field a transport
// adds to Record is kept in a file once recordFile holds it. The lab reads
// an event back from those fields; an event an older version wrote, with
// no "record", is read back from its words (see fromOlder).

// eventFile is an Event as a file holds it.
type eventFile struct {
	Scenario string      `json:"scenario"`
	AtMS     int64       `json:"at_ms"`
	Kind     Kind        `json:"kind"`
	Text     string      `json:"text"`
	Record   *recordFile `json:"record,omitempty"`
}

// recordFile is the "record" of an event in a file: the fields of a
// Record that the transcript's words do not hold as they are.
type recordFile struct {
	Kind   Kind        `json:"kind,omitempty"`
	Text   *string     `json:"text,omitempty"`
	Server string      `json:"server,omitempty"`
	Conn   int         `json:"conn,omitempty"`
	Header http.Header `json:"header,omitempty"`
	Status int         `json:"status,omitempty"`
	Played bool        `json:"played,omitempty"`
	// Deadline is the Record's Deadline. A note an older version wrote
	// has none, and is read back as a note that says no wait ran out.
	Deadline bool `json:"deadline,omitempty"`
}

// MarshalJSON writes the event as a file holds it, its time cut to whole
// milliseconds. Event has its own, so that nothing a Record has for json
// is promoted in its place.
func (e Event) MarshalJSON() ([]byte, error) {
	f := eventFile{Scenario: e.Scenario, AtMS: e.At.Milliseconds(), Kind: e.TranscriptKind(), Text: e.TranscriptText()}
	if e.Server != "" || e.Conn != 0 || e.Header != nil || e.Status != 0 || e.Played || e.Deadline {
		rec := &recordFile{Server: e.Server, Conn: e.Conn, Header: e.Header, Status: e.Status, Played: e.Played, Deadline: e.Deadline}
		if f.Kind != e.Kind {
			rec.Kind = e.Kind
		}
		if f.Text != e.Text {
			rec.Text = &e.Text
		}
		f.Record = rec
	}
	// Written without HTML escapes: the encoder that asked for the
	// event escapes them, or not, as it was told to.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("event of scenario %q: %w", e.Scenario, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads an event as a file holds it, one of an older
// version's included; "at_ms" is read back as At in milliseconds.
func (e *Event) UnmarshalJSON(b []byte) error {
	var f eventFile
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*e = Event{Scenario: f.Scenario, Record: Record{At: time.Duration(f.AtMS) * time.Millisecond, Kind: f.Kind, Text: f.Text}}
	rec := f.Record
	if rec == nil {
		*e = fromOlder(*e)
		return nil
	}
	e.Server, e.Conn, e.Header, e.Status, e.Played, e.Deadline = rec.Server, rec.Conn, rec.Header, rec.Status, rec.Played, rec.Deadline
	if rec.Kind != "" {
		e.Kind = rec.Kind
	}
	if rec.Text != nil {
		e.Text = *rec.Text
	}
	return nil
}

// FromOlder returns events with each event the rig saw that an older
// version kept as words alone (its server only in its text, see
// fromOlder) read back into fields; events that need no such reading are
// returned as they are, without a copy. A file's events are read back so
// as they are decoded; FromOlder is for a transcript that was built in
// memory the older way.
func FromOlder(events []Event) []Event {
	var out []Event
	for i, e := range events {
		up := fromOlder(e)
		if up.Played == e.Played {
			if out != nil {
				out[i] = e
			}
			continue
		}
		if out == nil {
			out = append(make([]Event, 0, len(events)), events...)
		}
		out[i] = up
	}
	if out == nil {
		return events
	}
	return out
}

// fromOlder reads the fields of an event the rig saw back from the words
// that versions before Record wrote in their place: "docs#1 {...}",
// "docs#1 [Mcp-Protocol-Version: 2026-07-28; Mcp-Method missing] {...}",
// "docs#1 HTTP 200 text/event-stream", "docs#1 held ...". Only the MCP
// headers were written, so only they come back. It is the one place the
// lab reads those words, kept so that a record an older grader wrote
// still resumes and draws; an event that is not one of the rig's, or
// whose words do not read as one, is returned as it is.
func fromOlder(e Event) Event {
	if e.Played || e.Server != "" || (e.Kind != ToServer && e.Kind != FromServer && e.Kind != Rig) {
		return e
	}
	where, rest, _ := strings.Cut(e.Text, " ")
	hash := strings.LastIndexByte(where, '#')
	if hash <= 0 {
		return e
	}
	conn, err := strconv.Atoi(where[hash+1:])
	if err != nil || conn < 0 || strconv.Itoa(conn) != where[hash+1:] {
		return e
	}
	out := Event{Scenario: e.Scenario, Record: Record{At: e.At, Server: where[:hash], Conn: conn, Text: rest, Played: true}}
	switch e.Kind {
	case ToServer:
		out.Kind = Send
		if !strings.HasPrefix(rest, "["+mcpHeaders[0]) {
			break
		}
		summary, body, ok := strings.Cut(rest[1:], "] ")
		if !ok && strings.HasSuffix(rest, "]") {
			summary, ok = rest[1:len(rest)-1], true // a POST with no body
		}
		if ok {
			out.Kind, out.Header, out.Text = Post, headersOf(summary), body
		}
	case FromServer:
		out.Kind = Answer
		if after, ok := strings.CutPrefix(rest, "HTTP "); ok {
			code, ct, _ := strings.Cut(after, " ")
			if n, err := strconv.Atoi(code); err == nil && n > 0 && strconv.Itoa(n) == code {
				out.Kind, out.Status, out.Text = Status, n, ct
			}
		}
	case Rig:
		word, text, _ := strings.Cut(rest, " ")
		out.Kind, out.Text = rigKindOf(word), text
	}
	return out
}

// headersOf is the headers a HeaderSummary names: each "Name: value" part
// of it, and none of the "Name missing" ones.
func headersOf(summary string) http.Header {
	h := http.Header{}
	for _, part := range strings.Split(summary, "; ") {
		if k, v, ok := strings.Cut(part, ": "); ok {
			h[k] = []string{v}
		}
	}
	return h
}
