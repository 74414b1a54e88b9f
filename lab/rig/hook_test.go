package rig

import (
	"context"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/event"
)

// ParseHook reads today's form (a tool's name) as a tools/call hook, a
// METHOD:NAME form for any method that names something (a uri keeps its
// colons), and a METHOD alone; it refuses what names nothing, with a
// sentence saying what to write.
func TestParseHook(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Hook
		text string // what the held event says
	}{
		{"search", Hook{"tools/call", "search"}, "call of search"},
		{"r_sum_", Hook{"tools/call", "r_sum_"}, "call of r_sum_"},
		{"resources/read:notes://retry-budget", Hook{"resources/read", "notes://retry-budget"}, "resources/read of notes://retry-budget"},
		{"prompts/get:summary", Hook{"prompts/get", "summary"}, "prompts/get of summary"},
		{"tools/call:search", Hook{"tools/call", "search"}, "call of search"},
		{"resources/list", Hook{"resources/list", ""}, "resources/list"},
	} {
		got, err := ParseHook(tt.in)
		if err != nil || got != tt.want || got.describe() != tt.text {
			t.Errorf("ParseHook(%q) = %+v (%q), %v; want %+v (%q)", tt.in, got, got.describe(), err, tt.want, tt.text)
		}
		if back, _ := ParseHook(got.String()); back != got {
			t.Errorf("ParseHook(%q).String() = %q reads back as %+v", tt.in, got.String(), back)
		}
	}
	for _, tt := range []struct{ in, says string }{
		{"", "names no tool"},
		{"resources/read:", "no name after it"},
		{"resources/list:notes://x", "a resources/list request names nothing"},
	} {
		if got, err := ParseHook(tt.in); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("ParseHook(%q) = %+v, %v; want an error saying %q", tt.in, got, err, tt.says)
		}
	}
}

// A hook picks the requests of its method that name its name, reading the
// member the method names things by (uri for a resource), and nothing else.
func TestHookPicks(t *testing.T) {
	read := Hook{"resources/read", "notes://a"}
	for _, tt := range []struct {
		hook Hook
		body string
		want bool
	}{
		{CallOf("search"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}` + "\n", true},
		{CallOf("search"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"search"}}`, true}, // as encoding/json reads a struct
		{CallOf("search"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other"}}`, false},
		{CallOf("search"), `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"search"}}`, false},
		{CallOf("search"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`, false},
		{CallOf("search"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"`, false},
		{read, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://a"}}`, true},
		{read, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"name":"notes://a"}}`, false},
		{read, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://b"}}`, false},
		{Hook{Method: "resources/list"}, `{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"cursor":"x"}}`, true},
		{Hook{Method: "resources/list"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{Hook{}, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":""}}`, false},
	} {
		if got := tt.hook.Picks([]byte(tt.body)); got != tt.want {
			t.Errorf("%+v picks %s: %v, want %v", tt.hook, tt.body, got, tt.want)
		}
	}
}

// A rig holds a resources/read the way lesson 3's rig holds a tools/call:
// the read of the hooked uri never reaches the server, the read of
// another uri and a call of a tool by that name do, and the held event
// says which request was held.
func TestStdioHoldsResourceRead(t *testing.T) {
	evs := newEventLog()
	r, err := Start(context.Background(), []Server{{Alias: "notes", Stdio: echoServer(nil), Hold: Hook{"resources/read", "notes://slow"}}},
		Options{Dir: shortDir(t), Relay: []string{"lab", "relay"}, OnEvent: evs.record})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rr := startRelay(t, configArg(t, r.Config()))
	slow := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://slow"}}`
	fast := `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes://fast"}}`
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"notes://slow"}}`
	// Each answered request goes out only after the answer before it has
	// come back, so the events' order is fixed by causality: the held read
	// and the read of another uri are both sent before that read's answer,
	// and the call after it.
	rr.send(t, slow)
	for _, want := range []string{fast, call} {
		rr.send(t, want)
		if got := rr.readLine(t); got != want {
			t.Fatalf("the relay gave %q, want %q (the held read never reaches the server)", got, want)
		}
	}
	rr.cancel()
	rr.wait(t)
	waitOpen(t, r, 0)
	sameEvents(t, "held read", r.Events(), []event.Record{
		{Server: "notes", Conn: 1, Kind: event.Start},
		{Server: "notes", Conn: 1, Kind: event.Send, Text: slow},
		{Server: "notes", Conn: 1, Kind: event.Held, Text: "the rig holds this resources/read of notes://slow and will never answer it"},
		{Server: "notes", Conn: 1, Kind: event.Send, Text: fast},
		{Server: "notes", Conn: 1, Kind: event.Answer, Text: fast},
		{Server: "notes", Conn: 1, Kind: event.Send, Text: call},
		{Server: "notes", Conn: 1, Kind: event.Answer, Text: call},
		{Server: "notes", Conn: 1, Kind: event.Exit},
	})
}

// An HTTP server's Cut hook breaks off the answer to a prompts/get of
// its prompt and no other request.
func TestHTTPBreaksPromptGet(t *testing.T) {
	evs := newEventLog()
	r, err := Start(context.Background(), []Server{{Alias: "p", HTTP: echoHandler{}, Cut: Hook{"prompts/get", "summary"}}}, Options{Dir: shortDir(t), OnEvent: evs.record})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	addr := r.Bridges()[0].Addr
	header := []string{"Content-Type: application/json", "Accept: application/json"}
	get := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summary"}}`
	if ex := post(t, "tcp", addr, "/mcp", header, get); ex.bodyErr == nil || ex.body != "" {
		t.Errorf("the broken answer read as %q, %v; want no bytes and an error", ex.body, ex.bodyErr)
	}
	got := untimed(evs.waitFor(t, event.Exit))
	if len(got) != 4 || got[2].Kind != event.Cut || got[2].Text != "the rig broke the connection before the answer's body" {
		t.Errorf("events of the broken answer\n%s", dumpEvents(got))
	}
	other := strings.Replace(get, `"summary"`, `"other"`, 1)
	if ex := post(t, "tcp", addr, "/mcp", header, other); ex.bodyErr != nil || ex.body != other {
		t.Errorf("another prompt's get answered %q, %v; want its echo", ex.body, ex.bodyErr)
	}
}
