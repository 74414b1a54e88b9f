package timeline

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
)

// TestRigEventsPlacedByField: the events the rig saw go to their server's
// lane by the server field, an alias with a '#' and a space included
// (which no reading of the words could place); a request is joined to the
// answer with its id on that server, the headers of an HTTP request are
// not read as its message, and the table shows the transcript's words.
func TestRigEventsPlacedByField(t *testing.T) {
	const alias = "desk #2 b"
	events := []event.Event{
		{Scenario: "c", Record: event.Record{At: 0, Kind: event.Send, Text: `{"command":"list_tools"}` + "\n"}},
		{Scenario: "c", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Post, Server: alias, Conn: 1, Played: true, Text: `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
			Header: http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}}}},
		{Scenario: "c", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Status, Server: alias, Conn: 1, Played: true, Status: 200, Text: "application/json"}},
		{Scenario: "c", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Answer, Server: alias, Conn: 1, Played: true, Text: `{"jsonrpc":"2.0","id":7,"result":{}}`}},
		{Scenario: "c", Record: event.Record{At: 4 * time.Millisecond, Kind: event.Exit, Server: alias, Conn: 1, Played: true}},
		{Scenario: "c", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Answer, Text: `{"tools":[]}`}},
	}
	if !ClientTranscript(events) {
		t.Fatal("a transcript with the rig's events is not a client's")
	}
	var b bytes.Buffer
	if err := WriteRun(&b, 98, events); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	var lanes []string
	for _, m := range regexp.MustCompile(`<text class="lane-name"[^>]*>([^<]*)<title>`).FindAllStringSubmatch(page, -1) {
		lanes = append(lanes, strings.ReplaceAll(m[1], "&#39;", "'"))
	}
	want := []string{"commands", "the client's answers", "server desk #2 b", "stderr", "grader"}
	if strings.Join(lanes, "|") != strings.Join(want, "|") {
		t.Errorf("lanes %q, want %q", lanes, want)
	}
	for _, s := range []string{
		"the server desk #2 b answers id 7",
		"desk #2 b#1 [Mcp-Protocol-Version: 2026-07-28; Mcp-Method: tools/list] {&#34;jsonrpc&#34;",
		"desk #2 b#1 HTTP 200 application/json",
		"desk #2 b#1 gone",
	} {
		if !strings.Contains(page, s) {
			t.Errorf("the page does not show %q", s)
		}
	}
	p, _ := Draw(events, Judged{})
	for _, m := range p.Scenarios[0].Marks {
		if m.Seq >= 2 && m.Seq <= 5 && m.Lane != "server "+alias {
			t.Errorf("event %d (%s) is in lane %q", m.Seq, m.Kind, m.Lane)
		}
	}
}

// TestHTTPCopiesDrawnByExchange: the events of an HTTP server lesson's
// copies go to each copy's lanes (requests, answers, logs), in the order
// the copies first appear, with no stdin or stdout lane; each answer that
// carries an id is joined to the POST of its own exchange, and none is
// judged wrong for not answering a line on stdin (there is none) or for a
// body that is not JSON.
func TestHTTPCopiesDrawnByExchange(t *testing.T) {
	post := func(at int64, copy string, conn int, id string) event.Event {
		return event.Event{Scenario: "h", Record: event.Record{At: time.Duration(at) * time.Millisecond, Kind: event.Post, Server: copy, Conn: conn, Text: `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/list"}`}}
	}
	events := []event.Event{
		{Scenario: "h", Record: event.Record{At: 0, Kind: event.Start, Server: "a", Text: "started with PORT=1"}},
		{Scenario: "h", Record: event.Record{At: 0, Kind: event.Start, Server: "b", Text: "started with PORT=2"}},
		{Scenario: "h", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Stderr, Server: "b", Text: "listening"}},
		post(10, "b", 1, "one"),
		{Scenario: "h", Record: event.Record{At: 11 * time.Millisecond, Kind: event.Status, Server: "b", Conn: 1, Status: 200, Text: "application/json"}},
		{Scenario: "h", Record: event.Record{At: 12 * time.Millisecond, Kind: event.Answer, Server: "b", Conn: 1, Text: `{"jsonrpc":"2.0","id":"one","result":{}}`}},
		post(20, "a", 2, "two"),
		{Scenario: "h", Record: event.Record{At: 21 * time.Millisecond, Kind: event.Status, Server: "a", Conn: 2, Status: 415, Text: "text/plain"}},
		{Scenario: "h", Record: event.Record{At: 22 * time.Millisecond, Kind: event.Answer, Server: "a", Conn: 2, Text: "unsupported media type"}},
	}
	p, _ := Draw(events, Judged{})
	sc := p.Scenarios[0]
	var lanes []string
	for _, l := range sc.Lanes {
		lanes = append(lanes, l.Short)
	}
	want := []string{"copy a: requests", "copy a: answers", "copy a: stderr", "copy b: requests", "copy b: answers", "copy b: stderr", "grader"}
	if strings.Join(lanes, "|") != strings.Join(want, "|") {
		t.Errorf("lanes %q, want %q", lanes, want)
	}
	for _, m := range sc.Marks {
		if strings.HasPrefix(m.Verdict, "wrong") {
			t.Errorf("event %d (%s %q) judged %q", m.Seq, m.Kind, m.Text, m.Verdict)
		}
	}
	if got := sc.Marks[5].JoinedTo; !strings.Contains(got, "answers the POST of exchange 1, id \"one\" (event 4") {
		t.Errorf("the answer of exchange 1 is joined to %q, want the POST of its exchange", got)
	}
	if got := sc.Marks[7].JoinedTo; !strings.Contains(got, "the status of exchange 2 (event 7)") {
		t.Errorf("the status of exchange 2 is joined to %q", got)
	}
	if len(sc.Links) != 1 {
		t.Errorf("%d links drawn, want 1 (the one answer with an id)", len(sc.Links))
	}
}
