package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/mcpclient"
	"github.com/mcplab/mcplab/lab/tickets"
)

// lesson3Config writes a configuration naming the notes library (this test
// binary as `lab serve notes`) and a ticket system at ticketsURL.
func lesson3Config(t *testing.T, ticketsURL string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "servers.json")
	cfg := fmt.Sprintf(`{"servers": {
		"notes": {"command": "env", "args": ["LAB_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0", %q, "serve", "notes"]},
		"tickets": {"url": %q}
	}}`, exe, ticketsURL)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func ticketServer(t *testing.T) string {
	srv := httptest.NewServer(tickets.Handler(nil))
	t.Cleanup(srv.Close)
	return srv.URL + tickets.Path
}

func emptyPort(t *testing.T) string {
	return "http://" + testkit.DeadAddr(t, "127.0.0.1") + "/mcp"
}

// labIn runs a lab command in-process with the given stdin.
func labIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := dispatch(context.Background(), e, args)
	return code, out.String(), errb.String()
}

func TestClientContract(t *testing.T) {
	cfg := lesson3Config(t, ticketServer(t))
	commands := strings.Join([]string{
		`{"command":"call_tool","name":"mcp__tickets__search","arguments":{"query":"division by zero"}}`,
		`{"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"division by zero"}}`,
		`{"command":"call_tool","name":"mcp__tickets__r_sum_"}`,
		`{"command":"call_tool","name":"mcp__notes__read_note","arguments":{"id":"nope"}}`,
		`{"command":"call_tool","name":"search"}`,
		`{"command":"call_tool","name":"mcp__notes__search","arguments":[1]}`,
		`{"command":"list_everything"}`,
	}, "\n")
	code, out, errs := labIn(t, commands, "client", "--config", cfg)
	want := strings.Join([]string{
		`{"text":"T-101 (open): Invoice totals crash with division by zero on empty invoices","isError":false}`,
		`{"text":"1 note(s) mention \"division by zero\":\ndivide-by-zero: Division by zero in the invoice totals","isError":false}`,
		`{"text":"1 closed, 3 open","isError":false}`,
		`{"text":"There is no note \"nope\"; search lists the ids there are.","isError":true}`,
		`{"text":"No tool is named \"search\".","isError":true}`,
		`{"error":"\"arguments\" must be an object"}`,
		`{"error":"unknown command \"list_everything\"; use \"list_tools\" or \"call_tool\""}`,
	}, "\n") + "\n"
	if code != exitOK || out != want {
		t.Errorf("exit %d, stderr %s\nstdout\n%s\nwant\n%s", code, errs, out, want)
	}
}

func TestClientContractListTools(t *testing.T) {
	cfg := lesson3Config(t, emptyPort(t))
	code, out, _ := labIn(t, `{"command":"list_tools"}`+"\n", "client", "--config", cfg)
	if code != exitOK || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, stdout %s", code, out)
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

func TestToolsAndCall(t *testing.T) {
	dead := lesson3Config(t, emptyPort(t))
	code, out, _ := labIn(t, "", "tools", "--config", dead)
	if code != exitFailed || !strings.Contains(out, "server tickets (http): UNAVAILABLE") ||
		!strings.Contains(out, "approval: ask (the server claims read-only; a claim is not trust)") ||
		!strings.Contains(out, "NOTICE: Server tickets (http) is unavailable, so its tools are missing") {
		t.Errorf("lab tools: exit %d\n%s", code, out)
	}
	code, out, errs := labIn(t, "", "call", "--config", dead, "mcp__notes__search", `{"query":"stdout"}`)
	if code != exitFailed || !strings.Contains(errs, "needs approval, as every remote tool does; rerun with --yes") || !strings.Contains(out, "did not approve") {
		t.Errorf("lab call without --yes: exit %d, stdout %s, stderr %s", code, out, errs)
	}
	code, out, _ = labIn(t, "", "call", "--config", dead, "--yes", "mcp__notes__search", `{"query":"stdout"}`)
	if code != exitOK || out != "1 note(s) mention \"stdout\":\nstdout-logs: Logs on stdout broke the MCP server\n" {
		t.Errorf("lab call --yes: exit %d, stdout %q", code, out)
	}
	code, out, _ = labIn(t, "", "call", "--config", dead, "--yes", "mcp__tickets__search", `{"query":"x"}`)
	if code != exitFailed || !strings.Contains(out, "No tool is named \"mcp__tickets__search\". These servers are unavailable") {
		t.Errorf("a call to the dead server: exit %d, stdout %q", code, out)
	}
}

func TestLesson3UsageErrors(t *testing.T) {
	dir := t.TempDir()
	dup := filepath.Join(dir, "dup.json")
	os.WriteFile(dup, []byte(`{"servers":{"a":{"command":"x"},"a":{"command":"y"}}}`), 0o600)
	for _, args := range [][]string{
		{"client", "--config", filepath.Join(dir, "missing.json")},
		{"client", "--config", dup},
		{"tools", "--config", dup, "extra"},
		{"call", "--config", dup},
		{"call", "--config", dup, "x", "[1]"},
		{"serve", "tickets", "--http", "256.0.0.1:99999"},
		{"serve", "notes", "extra"},
	} {
		if code, _, errs := labIn(t, "", args...); code != exitCannot {
			t.Errorf("lab %s: exit %d, want %d; stderr %s", strings.Join(args, " "), code, exitCannot, errs)
		}
	}
	if _, _, errs := labIn(t, "", "client", "--config", dup); !strings.Contains(errs, `the alias "a" is used twice`) {
		t.Errorf("stderr %s", errs)
	}
}

// lab serve notes answers on stdout and logs only on stderr.
func TestServeNotes(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"retry"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	code, out, _ := labIn(t, req, "serve", "notes")
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"1 note(s) mention \"retry\":\nretry-budget: Retry budget for the payment API"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcplab-notes","title":"Notes library","version":"1.0.0"}}}}` + "\n"
	if code != exitOK || out != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, out, want)
	}
}

// lab serve tickets listens where told, says where on stderr, answers the
// reference client, and stops cleanly when interrupted.
func TestServeTickets(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done, logged := serveTicketsHTTP(ctx, t)
	c, err := mcpclient.Connect(ctx, &mcpclient.HTTP{URL: url}, mcpclient.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.CallTool(ctx, "résumé", nil, mcpclient.WithProgress())
	c.Close()
	if err != nil || r.Text() != "1 closed, 3 open" || r.Reply.NotificationCount != 1 {
		t.Fatalf("got %+v, %v", r, err)
	}
	cancel()
	if code := <-done; code != exitOK || !strings.Contains(logged(), "tickets: stopped") {
		t.Errorf("exit %d, stderr %s", code, logged())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
