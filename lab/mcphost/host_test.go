package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/notes"
)

// The test binary doubles as a stdio server when its first argument says
// so: the notes server of these tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "notes-server" {
		var in io.Reader = os.Stdin
		if len(os.Args) > 2 {
			// Keep every byte the client sends, for a golden file.
			f, err := os.Create(os.Args[2])
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			defer f.Close()
			in = io.TeeReader(os.Stdin, f)
		}
		if err := notes.Serve(context.Background(), in, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "fake-notes-server" {
		err := fakeNotes().ServeStdio(context.Background(), os.Stdin, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The race detector's runtime sleeps a second before a process exits;
	// the servers these tests start need not.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	os.Exit(m.Run())
}

var objectSchema = json.RawMessage(`{"type":"object"}`)

func yes() *bool { b := true; return &b }

// echo is a tool that says which server and tool ran, and with what.
func echo(server string) mcpserver.ToolFunc {
	return func(_ context.Context, req *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(req.Params, &p)
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(fmt.Sprintf("%s ran %s with %s", server, p.Name, args))}}, nil
	}
}

// fakeNotes has three tools, two a page; search claims to be read only.
func fakeNotes() *mcpserver.Server {
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "notes", Version: "test"}, ToolsPageSize: 2}
	s.AddTool(mcp.Tool{Name: "search", Description: "Search the notes.", InputSchema: objectSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: yes()}}, echo("notes"))
	s.AddTool(mcp.Tool{Name: "read_note", InputSchema: objectSchema}, mcpserver.ToolFunc(
		func(_ context.Context, _ *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(strings.Repeat("n", 24000))}}, nil
		}))
	s.AddTool(mcp.Tool{Name: "delete_note", InputSchema: objectSchema}, mcpserver.ToolFunc(
		func(context.Context, *mcpserver.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return mcp.ToolError("no note has id 9"), nil
		}))
	return s
}

// fakeTickets serves its tools over HTTP, answering in JSON.
func fakeTickets(t *testing.T) string {
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "tickets", Version: "test"}}
	s.AddTool(mcp.Tool{Name: "search", Description: "Search tickets.", InputSchema: objectSchema}, echo("tickets"))
	s.AddTool(mcp.Tool{Name: "créer_ticket", InputSchema: objectSchema}, echo("tickets"))
	s.AddTool(mcp.Tool{Name: "créer.ticket", InputSchema: objectSchema}, echo("tickets"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reply := s.NewConn().Answer(r.Context(), body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply.Line)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func deadURL(t *testing.T) string {
	return "http://" + testkit.DeadAddr(t, "127.0.0.1") + "/mcp"
}

type approvals struct {
	mu    sync.Mutex
	asked []string
}

func (a *approvals) approve(t *Tool, _ json.RawMessage) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, t.Name)
	return true
}

func startHost(t *testing.T, ticketsURL string, approve func(*Tool, json.RawMessage) bool) *Host {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Servers: []ServerConfig{
		{Alias: "notes", Command: exe, Args: []string{"fake-notes-server"}},
		{Alias: "tickets", URL: ticketsURL, Timeout: 10 * time.Second},
	}}
	h, err := Start(context.Background(), cfg, Options{Timeout: 10 * time.Second, Approve: approve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestNamespace(t *testing.T) {
	h := startHost(t, fakeTickets(t), nil)
	var got []string
	for _, tool := range h.Tools() {
		got = append(got, tool.Name+"="+tool.Server+"/"+tool.Original)
		if !tool.NeedsApproval {
			t.Errorf("%s does not need approval", tool.Name)
		}
	}
	want := []string{
		"mcp__notes__search=notes/search",
		"mcp__notes__read_note=notes/read_note",
		"mcp__notes__delete_note=notes/delete_note",
		"mcp__tickets__search=tickets/search",
		"mcp__tickets__cr_er_ticket=tickets/créer_ticket",
		// the same name as the one above once replaced: the digest form
		// (six hex digits of sha1("tickets::créer.ticket")) keeps it apart
		"mcp__tickets__cr_er_ticket_86675d=tickets/créer.ticket",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("namespace:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	search, _ := h.Lookup("mcp__notes__search")
	if !search.ClaimsReadOnly() || !search.NeedsApproval {
		t.Errorf("search: claims read only %v, needs approval %v", search.ClaimsReadOnly(), search.NeedsApproval)
	}
	if search.Description != `Search the notes. (Tool "search" of MCP server "notes".)` {
		t.Errorf("description %q", search.Description)
	}
	if n := h.Notices(); len(n) != 0 {
		t.Errorf("notices %q", n)
	}
}

// Both search tools reach their own server under their original name.
func TestCallsReachTheirServer(t *testing.T) {
	a := &approvals{}
	h := startHost(t, fakeTickets(t), a.approve)
	ctx := context.Background()
	for _, tt := range []struct{ name, args, want string }{
		{"mcp__notes__search", `{"query":"disk"}`, `notes ran search with {"query":"disk"}`},
		{"mcp__tickets__search", `{"query":"disk"}`, `tickets ran search with {"query":"disk"}`},
		{"mcp__tickets__cr_er_ticket", ``, `tickets ran créer_ticket with `},
	} {
		r := h.Call(ctx, tt.name, json.RawMessage(tt.args))
		if r.IsError || r.Text != tt.want {
			t.Errorf("%s: got %+v, want %q", tt.name, r, tt.want)
		}
	}
	if strings.Join(a.asked, ",") != "mcp__notes__search,mcp__tickets__search,mcp__tickets__cr_er_ticket" {
		t.Errorf("approval was asked for %v", a.asked)
	}
}

func TestCallResults(t *testing.T) {
	h := startHost(t, fakeTickets(t), func(*Tool, json.RawMessage) bool { return true })
	ctx := context.Background()
	long := h.Call(ctx, "mcp__notes__read_note", nil)
	if n := len([]rune(long.Text)); n != 8052 || long.Cut != 16000 || long.IsError {
		t.Errorf("the long note came to %d characters, cut %d", n, long.Cut)
	}
	failed := h.Call(ctx, "mcp__notes__delete_note", nil)
	if !failed.IsError || failed.Text != "no note has id 9" {
		t.Errorf("a tool's failure: %+v", failed)
	}
	unknown := h.Call(ctx, "mcp__notes__nothing", nil)
	if !unknown.IsError || !strings.Contains(unknown.Text, `No tool is named "mcp__notes__nothing"`) {
		t.Errorf("an unknown tool: %+v", unknown)
	}
}

// Without approval nothing runs, read-only claims or not.
func TestNoApprovalNoCall(t *testing.T) {
	h := startHost(t, fakeTickets(t), nil)
	r := h.Call(context.Background(), "mcp__notes__search", nil)
	if !r.IsError || !strings.Contains(r.Text, "did not approve") {
		t.Errorf("got %+v", r)
	}
}

// A ticket server at an empty port: the notes tools work, the user is
// told, and a call to a tickets tool is a failed result.
func TestDeadServerIsolated(t *testing.T) {
	h := startHost(t, deadURL(t), func(*Tool, json.RawMessage) bool { return true })
	if n := len(h.Tools()); n != 3 {
		t.Errorf("%d tools, want the 3 notes tools", n)
	}
	notices := h.Notices()
	if len(notices) != 1 || !strings.Contains(notices[0], "Server tickets (http) is unavailable") || !strings.Contains(notices[0], "connection refused") {
		t.Errorf("notices %q", notices)
	}
	st := h.Servers()
	if st[0].Err != nil || st[0].Tools != 3 || st[1].Err == nil {
		t.Errorf("statuses %+v", st)
	}
	r := h.Call(context.Background(), "mcp__tickets__search", nil)
	if !r.IsError || !strings.Contains(r.Text, "tickets (") {
		t.Errorf("a call to the dead server: %+v", r)
	}
	if r := h.Call(context.Background(), "mcp__notes__search", nil); r.IsError {
		t.Errorf("notes failed too: %+v", r)
	}
}

// A server that dies after discovery: its calls become failed results.
func TestServerDiesLater(t *testing.T) {
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "tickets", Version: "test"}}
	s.AddTool(mcp.Tool{Name: "search", InputSchema: objectSchema}, echo("tickets"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(s.NewConn().Answer(r.Context(), body).Line)
	}))
	h := startHost(t, srv.URL+"/mcp", func(*Tool, json.RawMessage) bool { return true })
	srv.Close()
	r := h.Call(context.Background(), "mcp__tickets__search", nil)
	if !r.IsError || !strings.Contains(r.Text, `Calling tool "search" of server tickets failed`) {
		t.Errorf("got %+v", r)
	}
}

func TestStartRefusesDuplicateAlias(t *testing.T) {
	cfg := &Config{Servers: []ServerConfig{{Alias: "a", Command: "x"}, {Alias: "a", URL: "http://127.0.0.1:1/mcp"}}}
	if _, err := Start(context.Background(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Fatalf("got %v", err)
	}
}

// A command that does not exist costs only its own server.
func TestStartFailureIsolated(t *testing.T) {
	cfg := &Config{Servers: []ServerConfig{{Alias: "ghost", Command: "/no/such/server"}, {Alias: "tickets", URL: fakeTickets(t)}}}
	h, err := Start(context.Background(), cfg, Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if n := len(h.Tools()); n != 3 || !strings.Contains(strings.Join(h.Notices(), " "), "could not be started") {
		t.Errorf("%d tools, notices %q", n, h.Notices())
	}
}
