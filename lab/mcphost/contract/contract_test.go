package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/mcphost"
	"github.com/mcplab/mcplab/lab/notes"
	"github.com/mcplab/mcplab/lab/tickets"
)

// notesArg, as the test binary's first argument, makes it lesson 3's notes
// library on stdio: the stdio server these tests mount.
const notesArg = "contract-notes-server"

// TestMain serves the notes library when notesArg asks for it, else runs
// the tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == notesArg {
		if err := notes.Serve(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	// The notes servers need not sleep a second at exit under -race.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	os.Exit(m.Run())
}

// lesson3Host mounts lesson 3's servers as CONTRACT.md names them: the
// notes library (this binary) on stdio, the ticket system at ticketsURL.
func lesson3Host(t *testing.T, ticketsURL string) *mcphost.Host {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := []mcphost.ServerConfig{{Alias: "notes", Command: exe, Args: []string{notesArg}}, {Alias: "tickets", URL: ticketsURL}}
	approve := func(*mcphost.Tool, json.RawMessage) bool { return true }
	h, err := mcphost.Start(context.Background(), &mcphost.Config{Servers: servers}, mcphost.Options{Approve: approve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// serve runs Serve on the lines of in and returns what it wrote.
func serve(t *testing.T, h Host, in string) string {
	t.Helper()
	var out bytes.Buffer
	if err := Serve(context.Background(), h, strings.NewReader(in), &out); err != nil {
		t.Fatalf("Serve: %v; it wrote\n%s", err, out.String())
	}
	return out.String()
}

// TestServeOverTheHost answers calls to both of lesson 3's servers, the
// errors of tools and of commands, one line each, in order.
func TestServeOverTheHost(t *testing.T) {
	ticketSrv := httptest.NewServer(tickets.Handler(nil))
	defer ticketSrv.Close()
	h := lesson3Host(t, ticketSrv.URL+tickets.Path)
	commands := strings.Join([]string{
		`{"command":"call_tool","name":"mcp__tickets__search","arguments":{"query":"division by zero"}}`,
		`{"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"division by zero"}}`,
		`{"command":"call_tool","name":"mcp__tickets__r_sum_"}`,
		`{"command":"call_tool","name":"mcp__notes__read_note","arguments":{"id":"nope"}}`,
		`{"command":"call_tool","name":"search"}`,
		`{"command":"call_tool","name":"mcp__notes__search","arguments":[1]}`,
		`{"command":"list_everything"}`,
	}, "\n")
	want := strings.Join([]string{
		`{"text":"T-101 (open): Invoice totals crash with division by zero on empty invoices","isError":false}`,
		`{"text":"1 note(s) mention \"division by zero\":\ndivide-by-zero: Division by zero in the invoice totals","isError":false}`,
		`{"text":"1 closed, 3 open","isError":false}`,
		`{"text":"There is no note \"nope\"; search lists the ids there are.","isError":true}`,
		`{"text":"No tool is named \"search\".","isError":true}`,
		`{"error":"\"arguments\" must be an object"}`,
		`{"error":"unknown command \"list_everything\"; use \"list_tools\" or \"call_tool\""}`,
	}, "\n") + "\n"
	if got := serve(t, h, commands); got != want {
		t.Errorf("stdout\n%s\nwant\n%s", got, want)
	}
}

// TestListToolsOverTheHost lists the notes library's tools, in its order,
// and the unreachable ticket system as a failed server.
func TestListToolsOverTheHost(t *testing.T) {
	h := lesson3Host(t, "http://"+testkit.DeadAddr(t, "127.0.0.1")+"/mcp")
	out := serve(t, h, `{"command":"list_tools"}`+"\n")
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want one answer line, got\n%s", out)
	}
	for _, want := range []string{
		`{"tools":[{"name":"mcp__notes__search","description":"Finds notes whose title or text contains the query (case does not matter) and lists their ids and titles. (Tool \"search\" of MCP server \"notes\".)","needsApproval":true,"inputSchema":`,
		`{"name":"mcp__notes__read_note",`, `{"name":"mcp__notes__add_note",`,
		`],"failedServers":[{"server":"tickets","error":"`, `connection refused`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the answer lacks %s:\n%s", want, out)
		}
	}
}
