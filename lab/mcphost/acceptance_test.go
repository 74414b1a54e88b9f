package mcphost

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
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
	srv := httptest.NewServer(tickets.Handler(nil))
	defer srv.Close()
	start := func(ticketsURL string) *Host {
		cfg := &Config{Servers: []ServerConfig{
			{Alias: "notes", Command: exe, Args: []string{"notes-server"}},
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
