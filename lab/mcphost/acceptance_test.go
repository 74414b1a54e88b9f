package mcphost

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/notes"
	"github.com/mcplab/mcplab/lab/tickets"
)

// The seed's five acceptance ticks, against the lab's own notes library
// (a child process over stdio) and ticket system (HTTP on loopback).
func TestLessonAcceptance(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wire := &wireRecorder{next: tickets.Handler(nil)}
	srv := httptest.NewServer(wire)
	defer srv.Close()
	notesWire := filepath.Join(t.TempDir(), "notes-wire")
	start := func(ticketsURL string) *Host {
		cfg := &Config{Servers: []ServerConfig{
			{Alias: "notes", Command: exe, Args: []string{"notes-server", notesWire}},
			{Alias: "tickets", URL: ticketsURL},
		}}
		h, err := Start(context.Background(), cfg, Options{Timeout: 10 * time.Second, Approve: func(*Tool, json.RawMessage) bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	h := start(srv.URL + tickets.Path)
	ctx := context.Background()

	t.Run("pagination surfaces three notes tools", func(t *testing.T) {
		st := h.Servers()
		if st[0].Tools != 3 || st[0].Err != nil {
			t.Errorf("notes: %+v", st[0])
		}
	})
	t.Run("one notification plus one response", func(t *testing.T) {
		r := h.Call(ctx, "mcp__tickets__search", json.RawMessage(`{"query":"division by zero"}`))
		if r.IsError || r.Notifications != 1 || !strings.HasPrefix(r.Text, "T-101 (open)") {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("both search tools reach their own server", func(t *testing.T) {
		for name, want := range map[string]string{"mcp__notes__search": "divide-by-zero", "mcp__tickets__search": "T-101"} {
			tool, ok := h.Lookup(name)
			if !ok || tool.Original != "search" {
				t.Errorf("%s: %+v", name, tool)
			}
			if r := h.Call(ctx, name, json.RawMessage(`{"query":"division by zero"}`)); r.IsError || !strings.Contains(r.Text, want) {
				t.Errorf("%s: %+v", name, r)
			}
		}
		if r := h.Call(ctx, "mcp__tickets__r_sum_", nil); r.IsError || r.Text != "1 closed, 3 open" {
			t.Errorf("the tool with the accented name: %+v", r)
		}
	})
	t.Run("the long note comes to 8052", func(t *testing.T) {
		r := h.Call(ctx, "mcp__notes__read_note", json.RawMessage(`{"id":"`+notes.LongNoteID+`"}`))
		if n := len([]rune(r.Text)); n != 8052 || r.IsError {
			t.Errorf("%d characters", n)
		}
	})
	t.Run("read-only claims are not trusted", func(t *testing.T) {
		tool, _ := h.Lookup("mcp__notes__search")
		if !tool.ClaimsReadOnly() || !tool.NeedsApproval {
			t.Errorf("%+v", tool)
		}
	})
	t.Run("what the client sent the ticket system", func(t *testing.T) {
		checkGolden(t, "testdata/tickets-wire.golden", wire.String())
	})
	t.Run("what the client sent the notes library", func(t *testing.T) {
		// Closing the host ends the notes process, which flushes its copy.
		h.Close()
		b, err := os.ReadFile(notesWire)
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "testdata/notes-wire.golden", string(b))
	})
	t.Run("tickets at an empty port leave notes working", func(t *testing.T) {
		dead := start(deadURL(t))
		if n := len(dead.Tools()); n != 3 {
			t.Errorf("%d tools", n)
		}
		if r := dead.Call(ctx, "mcp__tickets__search", nil); !r.IsError {
			t.Errorf("a call to the dead server: %+v", r)
		}
		if r := dead.Call(ctx, "mcp__notes__search", json.RawMessage(`{"query":"queue"}`)); r.IsError {
			t.Errorf("notes: %+v", r)
		}
	})
}

// wireRecorder keeps what each POST carried that a server may check: the
// request line, the three MCP headers and the body.
type wireRecorder struct {
	next http.Handler
	mu   sync.Mutex
	log  strings.Builder
}

func (w *wireRecorder) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	w.mu.Lock()
	fmt.Fprintf(&w.log, "%s %s\n", r.Method, r.URL.Path)
	for _, h := range []string{"Content-Type", "Accept", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
		if v := r.Header.Values(h); len(v) > 0 {
			fmt.Fprintf(&w.log, "%s: %s\n", h, strings.Join(v, ", "))
		}
	}
	fmt.Fprintf(&w.log, "\n%s\n\n", body)
	w.mu.Unlock()
	w.next.ServeHTTP(rw, r)
}

func (w *wireRecorder) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}

var update = flag.Bool("update", false, "rewrite the golden files from what the tests see")

// checkGolden compares got with a golden file; -update rewrites it.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s", path, got)
	}
}
