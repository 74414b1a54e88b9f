package helpdesk_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/lab/helpdesk"
	"github.com/mcplab/mcplab/lab/schema"
)

// lessonData is lesson 2's data folder, which the lab binary embeds.
const lessonData = "../../lessons/02-json-rpc-on-the-wire/data"

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func call(tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + meta + `}}`
}

func serve(t *testing.T, lines ...string) []string {
	t.Helper()
	data, err := helpdesk.LoadData(os.DirFS(lessonData))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := helpdesk.New(data).ServeStdio(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	v, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	sess := v.NewSession()
	for _, l := range lines {
		sess.Check(schema.FromClient, []byte(l))
	}
	answers := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for _, a := range answers {
		if vd := sess.Check(schema.FromServer, []byte(a)); vd.Err != nil {
			t.Errorf("the answer does not meet the schema: %v\n%s", vd.Err, a)
		}
	}
	return answers
}

func TestGetTicket(t *testing.T) {
	got := serve(t, call("get_ticket", `{"ticket_id":"2318"}`))[0]
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Ticket 2318 (open, high priority): Bookings show the wrong time after the clock change\nCustomer: Priya Raman, Lotus Loft Yoga (C-104), studio plan\nOpened 2026-10-13T08:42:00Z, last update 2026-10-14T10:05:00Z\nClasses booked through the app appear an hour late in the studio calendar since the switch to winter time. Engineering is checking the time zone of the studio's account."}],"structuredContent":{"id":"2318","customer_id":"C-104","subject":"Bookings show the wrong time after the clock change","status":"open","priority":"high","opened":"2026-10-13T08:42:00Z","updated":"2026-10-14T10:05:00Z","summary":"Classes booked through the app appear an hour late in the studio calendar since the switch to winter time. Engineering is checking the time zone of the studio's account.","customer":{"id":"C-104","name":"Priya Raman","business":"Lotus Loft Yoga","city":"Leeds","plan":"studio","email":"priya@lotusloft.example","customer_since":"2024-03-11"}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"helpdesk","version":"0.1.0"}}}}`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A failure of the tool is a result with isError, for the model to read; it
// is never a protocol error.
func TestToolFailuresAreResults(t *testing.T) {
	tests := []struct{ tool, args, text string }{
		{"get_ticket", `{"ticket_id":"9999"}`, `There is no ticket \"9999\".`},
		{"get_ticket", `{"ticket_id":2318}`, `get_ticket's argument ticket_id must be a string such as \"2318\", not 2318.`},
		{"get_ticket", `{}`, `get_ticket needs the argument ticket_id`},
		{"get_customer", `{"customer_id":"C-999"}`, `There is no customer \"C-999\".`},
	}
	for _, tt := range tests {
		got := serve(t, call(tt.tool, tt.args))[0]
		if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"`+tt.text) ||
			!strings.Contains(got, `"isError":true`) {
			t.Errorf("%s %s:\ngot  %s\nwant a result with isError and the text %s", tt.tool, tt.args, got, tt.text)
		}
	}
}

func TestGetCustomer(t *testing.T) {
	got := serve(t, call("get_customer", `{"customer_id":"C-142"}`))[0]
	if !strings.Contains(got, `"text":"Customer C-142: Dele Adeyemi, Northside Boxing Club in Manchester, club plan since 2022-01-17, dele@northsideboxing.example"`) {
		t.Errorf("got %s", got)
	}
}

// tools/list pages hold one tool each; following nextCursor reaches both.
func TestToolsArePaged(t *testing.T) {
	first := serve(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`)[0]
	const cursor = `"nextCursor":"dG9vbHM6MTp2eXZ4MmVtaDN0Mnk"`
	if !strings.Contains(first, `"tools":[{"name":"get_ticket"`) || !strings.Contains(first, cursor) {
		t.Fatalf("first page: %s", first)
	}
	second := serve(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"dG9vbHM6MTp2eXZ4MmVtaDN0Mnk",`+meta+`}}`)[0]
	if !strings.Contains(second, `"tools":[{"name":"get_customer"`) || strings.Contains(second, "nextCursor") {
		t.Errorf("second page: %s", second)
	}
}

func TestLoadDataRejectsBrokenFiles(t *testing.T) {
	good := `[{"id":"C-1","name":"A","business":"B","city":"C","plan":"p","email":"e","customer_since":"2020-01-01"}]`
	tests := map[string]fstest.MapFS{
		"unknown customer":  {"customers.json": {Data: []byte(good)}, "tickets.json": {Data: []byte(`[{"id":"1","customer_id":"C-2"}]`)}},
		"duplicate ticket":  {"customers.json": {Data: []byte(good)}, "tickets.json": {Data: []byte(`[{"id":"1","customer_id":"C-1"},{"id":"1","customer_id":"C-1"}]`)}},
		"misspelt field":    {"customers.json": {Data: []byte(good)}, "tickets.json": {Data: []byte(`[{"id":"1","customer":"C-1"}]`)}},
		"missing file":      {"customers.json": {Data: []byte(good)}},
		"ticket without id": {"customers.json": {Data: []byte(good)}, "tickets.json": {Data: []byte(`[{"customer_id":"C-1"}]`)}},
	}
	for name, fsys := range tests {
		if _, err := helpdesk.LoadData(fsys); err == nil {
			t.Errorf("%s: LoadData accepted it", name)
		}
	}
}
