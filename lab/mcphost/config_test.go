package mcphost

import (
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"servers": {
		"tickets": {"url": "http://127.0.0.1:3115/mcp", "timeoutMs": 1500},
		"notes": {"command": "lab", "args": ["serve", "notes"]}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerConfig{
		{Alias: "tickets", URL: "http://127.0.0.1:3115/mcp", Timeout: 1500 * time.Millisecond},
		{Alias: "notes", Command: "lab", Args: []string{"serve", "notes"}},
	}
	if len(cfg.Servers) != 2 {
		t.Fatalf("got %+v", cfg.Servers)
	}
	for i, s := range cfg.Servers {
		w := want[i]
		if s.Alias != w.Alias || s.URL != w.URL || s.Command != w.Command || strings.Join(s.Args, " ") != strings.Join(w.Args, " ") || s.Timeout != w.Timeout {
			t.Errorf("server %d: got %+v, want %+v", i, s, w)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tt := range []struct{ config, want string }{
		{`{"servers":{"notes":{"command":"a"},"notes":{"url":"http://127.0.0.1:1/mcp"}}}`, `the alias "notes" is used twice`},
		{`{"servers":{"my notes":{"command":"a"}}}`, `the alias "my notes" has ' '`},
		{`{"servers":{"my__notes":{"command":"a"}}}`, `no "__"`},
		{`{"servers":{"_notes":{"command":"a"}}}`, `either end`},
		{`{"servers":{"":{"command":"a"}}}`, `alias is empty`},
		{`{"servers":{"n":{"comand":"a"}}}`, `unknown member "comand"`},
		{`{"servers":{"n":{"command":"a","url":"http://127.0.0.1:1/mcp"}}}`, `both "command" and "url"`},
		{`{"servers":{"n":{}}}`, `neither "command"`},
		{`{"servers":{"n":{"url":"127.0.0.1:3115"}}}`, `not an http:// or https:// URL`},
		{`{"servers":{"n":{"command":"a","timeoutMs":0}}}`, `timeoutMs must be a positive`},
		{`{"servers":{"n":{"command":"a","command":"b"}}}`, `"command" appears twice`},
		{`{"servers":{}}`, `names no servers`},
		{`{"mcpServers":{}}`, `unknown member "mcpServers"`},
		{`[]`, `must be a JSON object`},
		{`{"servers":{"n":{"command":"a"}}} {}`, `more after its closing brace`},
		{`{"servers":{"n":{"command":7}}}`, `"command"`},
	} {
		if _, err := ParseConfig([]byte(tt.config)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.config, err, tt.want)
		}
	}
}
