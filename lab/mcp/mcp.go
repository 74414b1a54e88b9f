// Package mcp is the vocabulary of the Model Context Protocol, revision
// 2026-07-28, that mcplab's servers and clients share: the protocol
// versions, the reserved _meta keys, the result types and cache scopes, the
// shapes of tools and tool results, and the checks every request's _meta
// must pass. It holds no transport and no state.
package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/wire"
)

// Version is the protocol revision this package describes.
const Version = "2026-07-28"

// LegacyVersions are the revisions before 2026-07-28 that open with the
// initialize handshake, newest first.
var LegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// The _meta keys that MCP reserves for itself on requests and results.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// The values of a result's "resultType".
const (
	ResultComplete      = "complete"       // the request is finished
	ResultInputRequired = "input_required" // the server needs input first
)

// The values of "cacheScope" on cacheable results.
const (
	CachePublic  = "public"  // holds no user's data; any cache may share it
	CachePrivate = "private" // may be reused only for the same authorization
)

// The methods of revision 2026-07-28 that this lab's servers answer, and
// the legacy ones a dual-era server keeps.
const (
	MethodDiscover    = "server/discover"
	MethodToolsList   = "tools/list"
	MethodToolsCall   = "tools/call"
	MethodCancelled   = "notifications/cancelled"
	MethodInitialize  = "initialize" // legacy: opens the old handshake
	MethodInitialized = "notifications/initialized"
	MethodPing        = "ping" // legacy: removed in 2026-07-28
)

// Implementation names a client or a server, as clientInfo and serverInfo
// do. The protocol never verifies it.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Tool describes a tool as tools/list shows it.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are hints about a tool. A client must not trust them
// unless it trusts the server.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Content is one block of a tool's result. This lab uses text blocks only.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// TextContent returns a text block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// CallToolResult is what a tool returns. IsError marks a failure of the
// tool itself (a ticket that does not exist, a bad argument), which the
// model should read; protocol failures are JSON-RPC errors instead.
type CallToolResult struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// ToolError returns a result that reports a failure of the tool in words
// the model can act on.
func ToolError(format string, args ...any) *CallToolResult {
	return &CallToolResult{Content: []Content{TextContent(fmt.Sprintf(format, args...))}, IsError: true}
}

// TextResult returns a result of one text block, text as it is.
func TextResult(text string) *CallToolResult {
	return &CallToolResult{Content: []Content{TextContent(text)}}
}

// RequestMeta is what a 2026-07-28 request says about itself in
// params._meta: the revision it speaks, what the client can do, and who the
// client says it is.
type RequestMeta struct {
	ProtocolVersion string
	// ClientCapabilities is the capabilities object as sent ({} for none).
	ClientCapabilities json.RawMessage
	// ClientInfo is nil when the client did not say.
	ClientInfo *Implementation
}

// HasModernMeta reports whether params carry a _meta object with a
// protocol version, the sign of a 2026-07-28 request.
func HasModernMeta(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[MetaProtocolVersion]
	return ok
}

// ReadRequestMeta reads and checks params._meta of a request. It returns a
// -32602 error that names every missing or malformed key; when keys are
// missing, its data is {"missing": [keys]}.
func ReadRequestMeta(params json.RawMessage) (RequestMeta, *wire.Error) {
	need := MetaProtocolVersion + " and " + MetaClientCapabilities
	p := bytes.TrimSpace(params)
	if len(p) == 0 {
		return RequestMeta{}, invalidMeta([]string{MetaProtocolVersion, MetaClientCapabilities},
			"Invalid params: the request has no params; every request needs params._meta with %s", need)
	}
	if p[0] != '{' {
		return RequestMeta{}, wire.Errorf(wire.CodeInvalidParams, "Invalid params: params must be an object holding _meta")
	}
	var obj struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(p, &obj); err != nil {
		return RequestMeta{}, wire.Errorf(wire.CodeInvalidParams, "Invalid params: %v", err)
	}
	m := bytes.TrimSpace(obj.Meta)
	if len(m) == 0 || bytes.Equal(m, wire.Null) {
		return RequestMeta{}, invalidMeta([]string{MetaProtocolVersion, MetaClientCapabilities},
			"Invalid params: params._meta is missing; every request needs it, with %s", need)
	}
	if m[0] != '{' {
		return RequestMeta{}, wire.Errorf(wire.CodeInvalidParams, "Invalid params: params._meta must be an object")
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(m, &meta); err != nil {
		return RequestMeta{}, wire.Errorf(wire.CodeInvalidParams, "Invalid params: params._meta: %v", err)
	}
	var out RequestMeta
	var missing, wrong []string
	if raw, ok := meta[MetaProtocolVersion]; !ok {
		missing = append(missing, MetaProtocolVersion)
	} else if json.Unmarshal(raw, &out.ProtocolVersion) != nil || out.ProtocolVersion == "" {
		wrong = append(wrong, MetaProtocolVersion+" must be a non-empty string such as \""+Version+"\"")
	}
	if raw, ok := meta[MetaClientCapabilities]; !ok {
		missing = append(missing, MetaClientCapabilities)
	} else if raw = bytes.TrimSpace(raw); len(raw) == 0 || raw[0] != '{' {
		wrong = append(wrong, MetaClientCapabilities+" must be an object ({} when the client has none)")
	} else {
		out.ClientCapabilities = raw
	}
	// clientInfo is optional and only for display and logs: a malformed one
	// is left out rather than failing the request.
	if raw, ok := meta[MetaClientInfo]; ok {
		var info Implementation
		if json.Unmarshal(raw, &info) == nil && info.Name != "" {
			out.ClientInfo = &info
		}
	}
	switch {
	case len(missing) > 0:
		return RequestMeta{}, invalidMeta(missing, "Invalid params: params._meta lacks %s", strings.Join(missing, " and "))
	case len(wrong) > 0:
		return RequestMeta{}, wire.Errorf(wire.CodeInvalidParams, "Invalid params: in params._meta, %s", strings.Join(wrong, "; "))
	}
	return out, nil
}

// invalidMeta builds -32602 with data {"missing": [keys]}, so a program can
// see what to add as well as a person.
func invalidMeta(missing []string, format string, args ...any) *wire.Error {
	e := wire.Errorf(wire.CodeInvalidParams, format, args...)
	e.Data, _ = json.Marshal(struct {
		Missing []string `json:"missing"`
	}{missing})
	return e
}

// UnsupportedVersion builds error -32022 for a request in a revision the
// server does not speak, listing the ones it does.
func UnsupportedVersion(supported []string, requested string) *wire.Error {
	e := wire.Errorf(wire.CodeUnsupportedProtocolVersion, "Unsupported protocol version")
	e.Data, _ = wire.MarshalCompact(struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}{supported, requested})
	return e
}
