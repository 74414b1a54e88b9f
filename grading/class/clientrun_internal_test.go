package class

import (
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// TestSameClientRun: two runs of the same client differ by ports, socket
// paths, ids, tokens and times, and are still the same run; a run that
// sent one other byte is not, nor is a run with no traffic at all.
func TestSameClientRun(t *testing.T) {
	run := func(port, dir, id string, at int64, name string) []grading.Event {
		return []grading.Event{
			{Scenario: "everyday", Record: event.Record{At: time.Duration(at) * time.Millisecond, Kind: event.Note, Text: "configuration: {\"url\": \"http://127.0.0.1:" + port + "/mcp\"} " + dir + "/s0.sock"}},
			{Scenario: "everyday", Record: event.Record{At: time.Duration(at+1) * time.Millisecond, Kind: event.ToServer, Text: "notes#" + id + ` {"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`}},
			{Scenario: "everyday", Record: event.Record{At: time.Duration(at+2) * time.Millisecond, Kind: event.ToServer, Text: "tickets#1 [Mcp-Protocol-Version: 2026-07-28] {\"token\":\"" + dir + "\",\"url\":\"http://127.0.0.1:" + port + "/mcp\"}"}},
			{Scenario: "everyday", Record: event.Record{At: time.Duration(at+3) * time.Millisecond, Kind: event.Answer, Text: `{"tools":["` + name + `"],"took_ms":` + id + `}`}},
			{Scenario: "everyday", Record: event.Record{At: time.Duration(at+4) * time.Millisecond, Kind: event.Stderr, Text: "log at " + dir}},
		}
	}
	a := run("41234", "/tmp/lab-rig-123/s456", "7", 10, "notes__search")
	b := run("39001", "/tmp/lab-rig-999/s1", "12", 99, "notes__search")
	b[4].Text = "another log line"
	if !sameClientRun(a, b) {
		t.Errorf("two runs of one client that differ by ports, paths, ids and times are not the same run:\n%q\n%q", clientSide(a), clientSide(b))
	}
	if c := run("41234", "/tmp/lab-rig-123/s456", "7", 10, "notes__find"); sameClientRun(a, c) {
		t.Errorf("runs that answered differently are the same run")
	}
	if sameClientRun(a[3:4], a[3:4]) {
		t.Errorf("a run with no message to a server is the same as the reference")
	}
	if !sameAsReference(a, b) || sameAsReferenceNote(a) == sameAsReferenceNote(a[3:4]) {
		t.Errorf("sameAsReference or its note do not tell a client's run from a server's")
	}
}
