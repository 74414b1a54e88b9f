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

// TestClientCommand runs the host of internal/clients behind the contract
// (lab/mcphost/contract tests the answers), named or not: flags may come
// before the name or after it, as the grader gives them.
func TestClientCommand(t *testing.T) {
	cfg := lesson3Config(t, ticketServer(t))
	commands := `{"command":"call_tool","name":"mcp__tickets__r_sum_"}` + "\n" +
		`{"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"division by zero"}}` + "\n"
	want := `{"text":"1 closed, 3 open","isError":false}` + "\n" +
		`{"text":"1 note(s) mention \"division by zero\":\ndivide-by-zero: Division by zero in the invoice totals","isError":false}` + "\n"
	for _, args := range [][]string{
		{"client", "--config", cfg},
		{"client", "host", "--config", cfg},
		{"client", "--config", cfg, "host"},
	} {
		if code, out, errs := labIn(t, commands, args...); code != exitOK || out != want {
			t.Errorf("lab %s: exit %d, stderr %s\nstdout\n%s\nwant\n%s", strings.Join(args[1:], " "), code, errs, out, want)
		}
	}
}

// TestClientUnknownName names the reference clients there are, before it
// mounts any server.
func TestClientUnknownName(t *testing.T) {
	code, out, errs := labIn(t, `{"command":"list_tools"}`+"\n", "client", "claude", "--config", filepath.Join(t.TempDir(), "missing.json"))
	want := `lab client: no reference client named "claude"; the clients are: host; name one of them (or none, for host) and give the commands on stdin, not as arguments` + "\n" +
		`Run "lab help client" for usage.` + "\n"
	if code != exitCannot || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q\nstderr\n%s\nwant\n%s", code, out, errs, want)
	}
	if code, _, errs := labIn(t, "", "client", "host", "extra"); code != exitCannot || !strings.Contains(errs, "lab client takes its commands on stdin, not as arguments") {
		t.Errorf("lab client host extra: exit %d, stderr %s", code, errs)
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
