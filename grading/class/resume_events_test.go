package class_test

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/lab/event"
)

// TestRecordKeepsRigEvents: a client lesson's record, written and read
// back by a later run, keeps each event the rig saw with its fields (the
// server, an alias with a '#' and a space; the connection; an HTTP
// request's headers; an answer's status); and a record whose events an
// older version wrote as words alone is read back into the same fields.
func TestRecordKeepsRigEvents(t *testing.T) {
	useKey(t)
	const alias = "desk #2 b"
	fields := []grading.Event{
		{Scenario: "c", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Send, Text: `{"command":"list_tools"}` + "\n"}},
		{Scenario: "c", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Post, Server: alias, Conn: 1, Played: true, Text: `{"id":1}`,
			Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}, "Content-Type": {"application/json"}}}},
		{Scenario: "c", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Status, Server: alias, Conn: 1, Played: true, Status: 200, Text: "application/json"}},
		{Scenario: "c", Record: event.Record{At: 4 * time.Millisecond, Kind: event.Answer, Server: alias, Conn: 1, Played: true, Text: `{"id":1,"result":{}}`}},
		{Scenario: "c", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Exit, Server: alias, Conn: 1, Played: true}},
	}
	older := []grading.Event{
		{Scenario: "c", Record: event.Record{At: 2 * time.Millisecond, Kind: event.ToServer, Text: "tickets#1 [Mcp-Protocol-Version: 2026-07-28; Mcp-Method: tools/list] {\"id\":1}"}},
		{Scenario: "c", Record: event.Record{At: 3 * time.Millisecond, Kind: event.FromServer, Text: "tickets#1 HTTP 200 application/json"}},
		{Scenario: "c", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Rig, Text: "tickets#1 gone"}},
	}
	olderRead := []grading.Event{
		{Scenario: "c", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Post, Server: "tickets", Conn: 1, Played: true, Text: `{"id":1}`,
			Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}}}},
		{Scenario: "c", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Status, Server: "tickets", Conn: 1, Played: true, Status: 200, Text: "application/json"}},
		{Scenario: "c", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Exit, Server: "tickets", Conn: 1, Played: true}},
	}
	now, then := goodResult("now"), goodResult("then")
	now.Transcript, then.Transcript = fields, older
	dir := writeRecords(t, map[string]*grading.Result{"now": now, "then": then})
	e, err := class.LoadEarlierOf(dir, forgedWith, forgedLesson)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]grading.Event{"now": fields, "then": olderRead} {
		s := e.Reuse(name, &grading.Submission{Hash: "h-" + name})
		if s == nil {
			t.Fatalf("%s: its record was not reused: %s", name, e.WhyNot(&class.Student{Name: name}))
		}
		if !reflect.DeepEqual(s.Result.Transcript, want) {
			t.Errorf("%s: the transcript read back\n %+v\nwant %+v", name, s.Result.Transcript, want)
		}
	}
}
