package rig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/mcp"
)

// Hook picks the requests of one method that name one thing: a tool's
// call (tools/call, params.name), a resource's read (resources/read,
// params.uri), a prompt's get (prompts/get, params.name). The rig plays a
// server badly on the requests a hook picks (see Server.Hold and
// Server.Cut). The zero Hook picks nothing.
type Hook struct {
	// Method is the request's method.
	Method string
	// Name is the name the request's params give; empty picks every
	// request of the method.
	Name string
}

// CallOf is the hook of the calls of one tool: lesson 3's hold=search.
func CallOf(tool string) Hook { return Hook{Method: mcp.MethodToolsCall, Name: tool} }

// ParseHook reads a hook as a scenario writes it (hold=..., cut=...):
//
//	search                          a tools/call of the tool search
//	resources/read:notes://retry    a resources/read of that uri
//	prompts/get:summary             a prompts/get of the prompt summary
//	resources/list                  every request of the method
//
// A value whose part before the first colon has a slash names a method
// (tool names have none); the rest, after the colon, is the name, colons
// and all. Anything else is a tool's name.
func ParseHook(s string) (Hook, error) {
	method, name, named := strings.Cut(s, ":")
	if !strings.Contains(method, "/") {
		if s == "" || strings.ContainsAny(s, " \t\r\n") {
			return Hook{}, fmt.Errorf("the hook %q names no tool: write a tool's name (search), or METHOD:NAME (resources/read:notes://retry)", s)
		}
		return CallOf(s), nil
	}
	if named && name == "" {
		return Hook{}, fmt.Errorf("the hook %q has a colon and no name after it: write %s:NAME, or %s alone for every request of it", s, method, method)
	}
	if named && mcp.NameMember(method) == "" {
		return Hook{}, fmt.Errorf("the hook %q names a %s, but a %s request names nothing (tools/call, prompts/get and resources/read do): write %s alone", s, method, method, method)
	}
	return Hook{Method: method, Name: name}, nil
}

// IsZero reports whether the hook picks nothing.
func (h Hook) IsZero() bool { return h.Method == "" }

// String is the hook as ParseHook reads it.
func (h Hook) String() string {
	switch {
	case h.IsZero():
		return ""
	case h.Method == mcp.MethodToolsCall && h.Name != "":
		return h.Name
	case h.Name == "":
		return h.Method
	}
	return h.Method + ":" + h.Name
}

// describe is the request a hook picks, for the words of an event: "call
// of search" (as the rig has always said), "resources/read of
// notes://retry", "resources/list".
func (h Hook) describe() string {
	switch {
	case h.Method == mcp.MethodToolsCall && h.Name != "":
		return "call of " + h.Name
	case h.Name == "":
		return h.Method
	}
	return h.Method + " of " + h.Name
}

// Picks reports whether a message is a request the hook picks. It reads
// the message as encoding/json reads a struct (member names matched
// without regard to case), as the rig always has.
func (h Hook) Picks(body []byte) bool {
	if h.IsZero() {
		return false
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name json.RawMessage `json:"name"`
			URI  json.RawMessage `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &m) != nil || m.Method != h.Method {
		return false
	}
	if h.Name == "" {
		return true
	}
	raw := m.Params.Name
	if mcp.NameMember(h.Method) == "uri" {
		raw = m.Params.URI
	}
	var name string
	return json.Unmarshal(raw, &name) == nil && name == h.Name
}

// holdText is the held event's words: "the rig holds this call of search
// and will never answer it".
func holdText(h Hook) string {
	return "the rig holds this " + h.describe() + " and will never answer it"
}
