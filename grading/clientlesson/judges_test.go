package clientlesson

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientplay"
	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/event"
)

// judgeTraffic runs the judges a catalogue names on one scenario's
// traffic and returns, per check, what each failure says.
func judgeTraffic(t *testing.T, catalogue string, traffic []event.Record) map[string][]string {
	t.Helper()
	checks, err := grading.ParseChecks([]byte(catalogue))
	if err != nil {
		t.Fatal(err)
	}
	if err := clientJudges().Check(checks); err != nil {
		t.Fatal(err)
	}
	run := &clientRun{Record: &clientplay.Record{Scenario: &clientscenario.Scenario{Name: "pages", Servers: []clientscenario.Server{{Alias: "docs"}}}, Traffic: traffic}}
	tl := grading.NewTally()
	for _, judge := range judgesFor(checks) {
		judge(run, tl)
	}
	got := map[string][]string{}
	for id := range tl.Tested {
		got[id] = []string{}
	}
	for id, fs := range tl.Failures {
		for _, f := range fs {
			got[id] = append(got[id], f.What+" | "+f.Expected)
		}
	}
	return got
}

// TestPaginationJudgeTakesItsMethod checks that the pagination judge pages
// the method its parameter names, here resources/list, which no lesson
// pages yet, and charges the check of the catalogue that names it: a
// client that stops after a first page of resources fails that check, and
// a tools/list with a cursor no answer gave is nothing to it, though it
// fails a check that pages tools/list.
func TestPaginationJudgeTakesItsMethod(t *testing.T) {
	send := func(at int, text string) event.Record {
		return event.Record{At: time.Duration(at) * time.Millisecond, Server: "docs", Conn: 1, Kind: event.Send, Text: text}
	}
	reply := func(at int, text string) event.Record {
		return event.Record{At: time.Duration(at) * time.Millisecond, Server: "docs", Conn: 1, Kind: event.Answer, Text: text}
	}
	firstPage := []event.Record{
		send(1, `{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{}}`),
		reply(2, `{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"file:///a"}],"nextCursor":"p2"}}`),
		send(3, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"zz"}}`),
		reply(4, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid cursor"}}`),
	}
	const resources = "-- resources.pages --\ntitle: every page of resources/list\npoints: 1\njudge: pagination method=resources/list\n"
	const tools = "-- tools.pages --\ntitle: every page of tools/list\npoints: 1\njudge: pagination method=tools/list\n"
	got := judgeTraffic(t, resources+tools, firstPage)
	want := map[string][]string{
		"resources.pages": {`docs answered resources/list with nextCursor "p2", and the client never asked for that page: it stopped after a page that said more were coming | resources/list again with that cursor, until an answer has no nextCursor`},
		"tools.pages":     {`the client sent docs a tools/list with cursor "zz", which no answer of that server gave | a cursor only from a nextCursor, passed back untouched`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("a client that stops after the first page of resources:\ngot  %q\nwant %q", got, want)
	}

	every := append(firstPage[:2:2],
		send(5, `{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{"cursor":"p2"}}`),
		reply(6, `{"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"file:///b"}]}}`))
	if got := judgeTraffic(t, resources, every); !reflect.DeepEqual(got, map[string][]string{"resources.pages": {}}) {
		t.Errorf("a client that asks for every page of resources: %q", got)
	}
}

// TestClientJudgesInReadme checks that the table of judges in
// lessons/README.md lists every judge of the client kind, with its
// parameters.
func TestClientJudgesInReadme(t *testing.T) {
	data, err := os.ReadFile("../../lessons/README.md")
	if err != nil {
		t.Fatal(err)
	}
	r := clientJudges()
	for _, name := range r.Names() {
		j, _ := r.Lookup(name)
		row := "| client | `" + name + "` | "
		i := strings.Index(string(data), row)
		if i < 0 {
			t.Errorf("lessons/README.md has no row %q...", row)
			continue
		}
		line, _, _ := strings.Cut(string(data[i+len(row):]), "\n")
		for _, p := range j.Params {
			if !strings.HasPrefix(line, "`"+p+"`") {
				t.Errorf("lessons/README.md's row of %s does not begin its parameters with %s: %q", name, p, line)
			}
		}
	}
}

// TestPaginationChargesAPageTheClientGaveUpOnToItsDeadline checks that a
// page the client cancelled before it read the answer (its own timeout ran
// out, as it can on a loaded machine while the answer is on its way) is a
// failure that rests on a deadline, to be graded again before it is
// charged, and that a client that simply stops after the first page is
// charged as before, with no deadline.
func TestPaginationChargesAPageTheClientGaveUpOnToItsDeadline(t *testing.T) {
	checks, err := grading.ParseChecks([]byte("-- pages --\ntitle: every page\npoints: 1\njudge: pagination method=tools/list\n"))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(at int, kind event.Kind, text string) event.Record {
		return event.Record{At: time.Duration(at) * time.Millisecond, Server: "docs", Conn: 1, Kind: kind, Text: text}
	}
	page := []event.Record{
		rec(1, event.Send, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`),
		rec(2900, event.Answer, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"p2"}}`),
	}
	cancel := func(id string) event.Record {
		return rec(3001, event.Send, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"timed out"}}`)
	}
	restart := rec(3002, event.Send, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	cases := []struct {
		name         string
		traffic      []event.Record
		wantDeadline bool
		wantWhat     string
	}{
		{"stopped", page, false, "it stopped after a page that said more were coming"},
		{"cancelled", append(page[:2:2], cancel("1")), true, "cancelled that request (notifications/cancelled) 3s after sending it"},
		{"cancelled another", append(page[:2:2], cancel("7")), false, "it stopped after a page"},
		{"cancelled, started over", append(page[:2:2], cancel("1"), restart), true, "started over without a cursor; the client had cancelled that request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := &clientRun{Record: &clientplay.Record{Scenario: &clientscenario.Scenario{Name: "pages", Servers: []clientscenario.Server{{Alias: "docs"}}}, Traffic: tc.traffic}}
			tl := grading.NewTally()
			for _, judge := range judgesFor(checks) {
				judge(run, tl)
			}
			fs := tl.Failures["pages"]
			if len(fs) != 1 {
				t.Fatalf("%d failures, want 1: %+v", len(fs), fs)
			}
			if fs[0].Deadline != tc.wantDeadline || !strings.Contains(fs[0].What, tc.wantWhat) {
				t.Errorf("failure %q, deadline %v; want one saying %q, deadline %v", fs[0].What, fs[0].Deadline, tc.wantWhat, tc.wantDeadline)
			}
		})
	}
}

// TestGivingUpOnAnAnsweredRequestRestsTheScenarioOnADeadline checks that a
// scenario in which the client cancelled a request the lab neither held
// nor cut (its own timeout ran out while the answer was on its way, as on
// a loaded machine) has every failure and skip rest on that deadline,
// and that cancelling a request the lab held, as the lesson asks, or
// cancelling none, leaves the verdicts as they are.
func TestGivingUpOnAnAnsweredRequestRestsTheScenarioOnADeadline(t *testing.T) {
	rec := func(at int, conn int, kind event.Kind, text string) event.Record {
		return event.Record{At: time.Duration(at) * time.Millisecond, Server: "notes", Conn: conn, Kind: kind, Text: text}
	}
	list := rec(10, 1, event.Send, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	cancel := rec(5010, 1, event.Send, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"timed out"}}`)
	cases := []struct {
		name    string
		traffic []event.Record
		want    string // "" for no deadline
	}{
		{"cancelled, answered", []event.Record{list, cancel, rec(5020, 1, event.Answer, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)},
			"the client had cancelled its tools/list 1 to notes (notifications/cancelled), a request the lab neither held nor cut"},
		{"cancelled, held", []event.Record{list, rec(10, 1, event.Held, "held"), cancel}, ""},
		{"cancelled, cut", []event.Record{list, rec(20, 1, event.Cut, "cut"), cancel}, ""},
		{"cancelled on another connection", []event.Record{list, rec(5010, 2, event.Send, cancel.Text)}, ""},
		{"nothing cancelled", []event.Record{list, rec(20, 1, event.Answer, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := &clientRun{Record: &clientplay.Record{Scenario: &clientscenario.Scenario{Name: "everyday", Servers: []clientscenario.Server{{Alias: "notes", Transport: "stdio"}}}, Traffic: tc.traffic}}
			if got := run.gaveUpUnhindered(); (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("gave up: %q, want %q", got, tc.want)
			}
		})
	}
	// A stdio server the lab never heard from (its relay had not connected
	// when the client gave it up) rests the scenario on that deadline too;
	// one the scenario keeps down, or an HTTP one, does not.
	servers := []clientscenario.Server{{Alias: "notes", Transport: "stdio"}, {Alias: "docs", Transport: "stdio"}, {Alias: "old", Transport: "stdio", Down: true}, {Alias: "tickets", Transport: "http"}}
	run := &clientRun{Record: &clientplay.Record{Scenario: &clientscenario.Scenario{Name: "everyday", Servers: servers}, Traffic: []event.Record{list}}}
	if got := run.gaveUpUnhindered(); !strings.Contains(got, "the lab never heard from the stdio server docs") {
		t.Errorf("a stdio server that never connected: %q", got)
	}
	run.Traffic = append(run.Traffic, event.Record{Server: "docs", Conn: 1, Kind: event.Start})
	if got := run.gaveUpUnhindered(); got != "" {
		t.Errorf("every stdio server connected, none cancelled: %q, want nothing", got)
	}
}
