// Package mcpserver is mcplab's hand-written, stateless MCP server core for
// revision 2026-07-28. A Server holds what a server is: its identity, its
// instructions, its tools and the other methods it answers (resources,
// prompts), whose families it advertises as its capabilities. A Conn answers the messages of one connection
// (one stdio process, or one HTTP request), whatever the transport: it
// checks every request's _meta, answers server/discover and tools/list
// (paged with opaque cursors) itself, runs tools/call through the tool
// registry, and keeps the one piece of state the protocol allows, the
// switch to legacy rules that an initialize request makes. ServeStdio is the
// stdio transport.
//
// The core writes 2026-07-28 errors: a line whose id cannot be read, or
// whose id is null, is answered without an "id" member.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/wire"
)

// DefaultTTL is how long a client may reuse the answers of server/discover
// and tools/list when the Server does not say: one hour.
const DefaultTTL = time.Hour

// Request is one request as a handler sees it, after the core has checked
// its envelope and its _meta.
type Request struct {
	// ID is the request's id, as sent.
	ID json.RawMessage
	// Method is the request's method.
	Method string
	// Params are the request's params as sent (nil when it had none).
	Params json.RawMessage
	// Meta is what params._meta said. It is empty on a legacy request.
	Meta mcp.RequestMeta
	// Legacy is true for a request served under the rules before
	// 2026-07-28, after an initialize on the same connection.
	Legacy bool
}

// A ToolHandler runs one tool. It returns the tool's result; a result with
// IsError reports a failure of the tool the model should read (a ticket that
// does not exist). An error is a protocol failure: a *wire.Error is sent as
// it is, any other error as -32603.
type ToolHandler interface {
	CallTool(ctx context.Context, req *Request, arguments json.RawMessage) (*mcp.CallToolResult, error)
}

// ToolFunc lets an ordinary function be a ToolHandler.
type ToolFunc func(ctx context.Context, req *Request, arguments json.RawMessage) (*mcp.CallToolResult, error)

// CallTool calls f.
func (f ToolFunc) CallTool(ctx context.Context, req *Request, arguments json.RawMessage) (*mcp.CallToolResult, error) {
	return f(ctx, req, arguments)
}

// A MethodHandler answers a method the core does not know itself, such as
// resources/list. It returns a value that encodes as a JSON object: the core
// adds "resultType": "complete" and the serverInfo _meta unless it already
// has them. Errors are treated as a ToolHandler's are.
type MethodHandler interface {
	ServeMethod(ctx context.Context, req *Request) (any, error)
}

// MethodFunc lets an ordinary function be a MethodHandler.
type MethodFunc func(ctx context.Context, req *Request) (any, error)

// ServeMethod calls f.
func (f MethodFunc) ServeMethod(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// Server describes an MCP server. Set its fields and register its tools and
// methods before the first message is answered; after that it is read only
// and safe for any number of connections at once.
type Server struct {
	// Info is the server's name and version, sent as serverInfo.
	Info mcp.Implementation
	// Instructions tell a model what the server is for.
	Instructions string
	// Versions are the 2026-07-28-style revisions the server speaks, newest
	// first. Nil means just mcp.Version.
	Versions []string
	// LegacyVersions are the revisions the initialize handshake may agree
	// on, newest first. Nil means the server is modern only: initialize
	// gets -32022 naming the versions it speaks.
	LegacyVersions []string
	// ToolsPageSize is how many tools one tools/list page holds; 0 means
	// all of them.
	ToolsPageSize int
	// TTL is the ttlMs of server/discover and tools/list; 0 means
	// DefaultTTL, a negative value 0 (do not cache).
	TTL time.Duration
	// CacheScope is their cacheScope; "" means mcp.CachePublic.
	CacheScope string
	// Log receives the server's log lines (never the protocol stream). Nil
	// means no logs.
	Log io.Writer
	// LogRequests logs one line for every message read, not only for the
	// bad ones.
	LogRequests bool
	// MaxLine is the longest line ServeStdio accepts, in bytes; 0 means
	// wire.DefaultMaxLine.
	MaxLine int
	// MaxInFlight bounds the tool calls ServeStdio runs at once; 1 means
	// every line is answered before the next is read, 0 means
	// DefaultMaxInFlight.
	MaxInFlight int

	tools   []registeredTool
	methods map[string]MethodHandler

	once   sync.Once
	cache  *answers
	logMu  sync.Mutex
	nameMu sync.Mutex
}

type registeredTool struct {
	tool    mcp.Tool
	handler ToolHandler
}

// AddTool registers a tool. Tools are listed in the order they were added.
// It panics on a tool with no name, no input schema, or a name already
// taken, as http.ServeMux does on a bad pattern: those are programming
// errors.
func (s *Server) AddTool(t mcp.Tool, h ToolHandler) {
	s.nameMu.Lock()
	defer s.nameMu.Unlock()
	s.mustNotServeYet("AddTool " + t.Name)
	switch {
	case t.Name == "":
		panic("mcpserver: AddTool: a tool needs a name")
	case len(t.InputSchema) == 0 || !json.Valid(t.InputSchema):
		panic(fmt.Sprintf("mcpserver: AddTool %q: the input schema must be a JSON object", t.Name))
	case h == nil:
		panic(fmt.Sprintf("mcpserver: AddTool %q: nil handler", t.Name))
	}
	for _, r := range s.tools {
		if r.tool.Name == t.Name {
			panic(fmt.Sprintf("mcpserver: AddTool: a tool named %q is already registered", t.Name))
		}
	}
	s.tools = append(s.tools, registeredTool{t, h})
}

// HandleMethod registers a handler for a method the core does not answer
// itself. It panics when the method is one of the core's.
func (s *Server) HandleMethod(method string, h MethodHandler) {
	s.nameMu.Lock()
	defer s.nameMu.Unlock()
	s.mustNotServeYet("HandleMethod " + method)
	switch method {
	case mcp.MethodDiscover, mcp.MethodToolsList, mcp.MethodToolsCall, mcp.MethodInitialize, mcp.MethodPing, "":
		panic(fmt.Sprintf("mcpserver: HandleMethod: %q is answered by the core", method))
	}
	if s.methods == nil {
		s.methods = make(map[string]MethodHandler)
	}
	s.methods[method] = h
}

// Tools returns the registered tools, in order.
func (s *Server) Tools() []mcp.Tool {
	out := make([]mcp.Tool, len(s.tools))
	for i, r := range s.tools {
		out[i] = r.tool
	}
	return out
}

func (s *Server) versions() []string {
	if len(s.Versions) == 0 {
		return []string{mcp.Version}
	}
	return s.Versions
}

func (s *Server) logf(format string, args ...any) {
	if s.Log == nil {
		return
	}
	name := s.Info.Name
	if name == "" {
		name = "mcp"
	}
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.Log, "%s: %s\n", name, msg)
}

// answers holds the encoded results that never change: server/discover and
// the pages of tools/list, in both eras.
type answers struct {
	discover     json.RawMessage
	toolPages    []json.RawMessage // modern pages
	legacyPages  []json.RawMessage // legacy pages: no resultType, no ttlMs
	initialize   map[string]json.RawMessage
	fingerprint  string
	serverMeta   json.RawMessage // {"io.modelcontextprotocol/serverInfo": ...}
	pageSize     int
	toolIndex    map[string]int
	capabilities json.RawMessage
}

type serverMeta struct {
	ServerInfo mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
}

func (s *Server) answers() *answers {
	s.once.Do(func() {
		s.nameMu.Lock()
		defer s.nameMu.Unlock()
		s.cache = s.build()
	})
	return s.cache
}

// mustNotServeYet panics when the server has begun answering: its fixed
// answers (discover, the tool pages) are built then, and a tool added later
// would be missing from them. The caller holds nameMu.
func (s *Server) mustNotServeYet(what string) {
	if s.cache != nil {
		panic("mcpserver: " + what + " after the server began answering; register tools and methods first")
	}
}

func (s *Server) build() *answers {
	a := &answers{toolIndex: make(map[string]int, len(s.tools)), initialize: map[string]json.RawMessage{}}
	must := func(v any) json.RawMessage {
		b, err := wire.MarshalCompact(v)
		if err != nil {
			panic(fmt.Sprintf("mcpserver: encoding a fixed answer: %v", err))
		}
		return b
	}
	a.serverMeta = must(serverMeta{s.Info})
	a.capabilities = must(s.capabilities())
	ttl := s.TTL
	switch {
	case ttl == 0:
		ttl = DefaultTTL
	case ttl < 0:
		ttl = 0
	}
	scope := s.CacheScope
	if scope == "" {
		scope = mcp.CachePublic
	}
	a.discover = must(struct {
		ResultType        string          `json:"resultType"`
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      string          `json:"instructions,omitempty"`
		Meta              json.RawMessage `json:"_meta"`
		TTLMs             int64           `json:"ttlMs"`
		CacheScope        string          `json:"cacheScope"`
	}{mcp.ResultComplete, s.versions(), a.capabilities, s.Instructions, a.serverMeta, ttl.Milliseconds(), scope})

	h := fnv.New64a()
	for i, r := range s.tools {
		a.toolIndex[r.tool.Name] = i
		h.Write([]byte(r.tool.Name))
		h.Write([]byte{0})
		h.Write(r.tool.InputSchema)
		h.Write([]byte{0})
	}
	a.fingerprint = strconv.FormatUint(h.Sum64(), 36)
	a.pageSize = s.ToolsPageSize
	if a.pageSize <= 0 || a.pageSize > len(s.tools) {
		a.pageSize = max(len(s.tools), 1)
	}
	tools := s.Tools()
	for start := 0; start < len(tools) || start == 0; start += a.pageSize {
		end := min(start+a.pageSize, len(tools))
		var next *string
		if end < len(tools) {
			c := a.cursor(end)
			next = &c
		}
		a.toolPages = append(a.toolPages, must(struct {
			ResultType string          `json:"resultType"`
			Tools      []mcp.Tool      `json:"tools"`
			NextCursor *string         `json:"nextCursor,omitempty"`
			Meta       json.RawMessage `json:"_meta"`
			TTLMs      int64           `json:"ttlMs"`
			CacheScope string          `json:"cacheScope"`
		}{mcp.ResultComplete, tools[start:end], next, a.serverMeta, ttl.Milliseconds(), scope}))
		a.legacyPages = append(a.legacyPages, must(struct {
			Tools      []mcp.Tool `json:"tools"`
			NextCursor *string    `json:"nextCursor,omitempty"`
		}{tools[start:end], next}))
		if end == len(tools) {
			break
		}
	}
	for _, v := range s.LegacyVersions {
		a.initialize[v] = must(struct {
			ProtocolVersion string             `json:"protocolVersion"`
			Capabilities    json.RawMessage    `json:"capabilities"`
			ServerInfo      mcp.Implementation `json:"serverInfo"`
			Instructions    string             `json:"instructions,omitempty"`
		}{v, a.capabilities, s.Info, s.Instructions})
	}
	return a
}

// cursor returns the opaque cursor of the tools/list page that starts at
// tool number start. It carries the tool list's fingerprint, so a cursor
// from a server with other tools is refused rather than misread.
func (a *answers) cursor(start int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("tools:" + strconv.Itoa(start) + ":" + a.fingerprint))
}

// page returns the index of the page a cursor points at.
func (a *answers) page(cursor string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(raw), "tools:")
	if !ok {
		return 0, false
	}
	num, print, ok := strings.Cut(rest, ":")
	if !ok || print != a.fingerprint {
		return 0, false
	}
	start, err := strconv.Atoi(num)
	if err != nil || start <= 0 || start%a.pageSize != 0 || start/a.pageSize >= len(a.toolPages) {
		return 0, false
	}
	return start / a.pageSize, true
}

// Conn answers the messages of one connection: one stdio process, or one
// HTTP request. It is safe for concurrent use. Its only state is whether an
// initialize request switched it to legacy rules.
type Conn struct {
	srv *Server
	a   *answers

	mu     sync.Mutex
	legacy string // the legacy version agreed on; "" while modern
}

// NewConn returns a fresh connection, in the 2026-07-28 era.
func (s *Server) NewConn() *Conn { return &Conn{srv: s, a: s.answers()} }

// Legacy returns the legacy revision an initialize request agreed on, or ""
// while the connection follows 2026-07-28.
func (c *Conn) Legacy() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.legacy
}

// Reply is the answer to one line.
type Reply struct {
	// Line is the response, one line ending in a newline. It is nil when
	// nothing must be sent: the line was a notification.
	Line []byte
	// Err is the error the response carries; nil for a result or no answer.
	Err *wire.Error
	// Message is the line read, when it was a request or a notification.
	Message *wire.Message
}

// Answer reads one line and answers it. It never panics, whatever the bytes.
func (c *Conn) Answer(ctx context.Context, line []byte) Reply {
	r, call := c.begin(line)
	if call != nil {
		return call.run(ctx)
	}
	return r
}

// pendingCall is a request whose answer needs a handler to run: tools/call
// or a registered method. Everything else is answered by begin.
type pendingCall struct {
	c    *Conn
	msg  *wire.Message
	req  *Request
	tool *registeredTool
	args json.RawMessage
	meth MethodHandler
}

// begin does everything that must happen in the order lines arrive: it
// parses the line, answers what the core answers, switches eras, and hands
// back the calls that may run at the same time as later lines.
func (c *Conn) begin(line []byte) (Reply, *pendingCall) {
	var top [8]member
	msg, _, fast := fastRequest(line, top[:])
	if !fast {
		var problem *wire.Problem
		if msg, problem = wire.ParseRequest(line); problem != nil {
			id := problem.ID
			if string(id) == string(wire.Null) {
				id = nil // 2026-07-28: no id member, never "id": null
			}
			c.srv.logf("bad line %s: %s", wire.QuoteShort(line), problem.Err.Message)
			return c.fail(nil, id, problem.Err), nil
		}
	}
	if msg.Kind == wire.KindNotification {
		if c.srv.LogRequests {
			c.srv.logf("notification %s (never answered)", msg.Method)
		}
		return Reply{Message: msg}, nil
	}
	if c.srv.LogRequests {
		c.srv.logf("request %s id=%s", msg.Method, msg.ID)
	}
	if msg.Method == mcp.MethodInitialize {
		return c.initialize(msg), nil
	}
	f, ok := paramFields(msg.Params)
	if !ok {
		f, _ = slowFields(msg.Params) // params that are no object fail the _meta check below
	}
	req := &Request{ID: msg.ID, Method: msg.Method, Params: msg.Params}
	if c.Legacy() != "" && !mcp.HasModernMeta(msg.Params) {
		req.Legacy = true
	} else {
		meta, ok := fastMeta(f)
		if !ok {
			var err *wire.Error
			if meta, err = mcp.ReadRequestMeta(msg.Params); err != nil {
				if len(err.Data) > 0 && topLevelMeta(line) {
					err.Message += "; this message has _meta at its top level, but it belongs inside params"
				}
				return c.fail(msg, msg.ID, err), nil
			}
		}
		if !slices.Contains(c.srv.versions(), meta.ProtocolVersion) {
			return c.fail(msg, msg.ID, mcp.UnsupportedVersion(c.srv.versions(), meta.ProtocolVersion)), nil
		}
		req.Meta = meta
	}
	switch msg.Method {
	case mcp.MethodDiscover:
		return c.result(msg, c.a.discover), nil
	case mcp.MethodPing:
		if req.Legacy {
			return c.result(msg, json.RawMessage(`{}`)), nil
		}
	case mcp.MethodToolsList:
		if len(c.srv.tools) > 0 {
			return c.listTools(msg, req, f), nil
		}
	case mcp.MethodToolsCall:
		if len(c.srv.tools) > 0 {
			return c.prepareCall(msg, req, f)
		}
	default:
		if h, ok := c.srv.methods[msg.Method]; ok {
			return Reply{}, &pendingCall{c: c, msg: msg, req: req, meth: h}
		}
	}
	return c.fail(msg, msg.ID, wire.Errorf(wire.CodeMethodNotFound, "Method not found: %s", msg.Method)), nil
}

// fastMeta reads params._meta when it is compact and plain, as
// mcp.ReadRequestMeta would; false sends the request to ReadRequestMeta.
func fastMeta(f fields) (mcp.RequestMeta, bool) {
	var out mcp.RequestMeta
	if !f.hasMeta {
		return out, false
	}
	var buf [8]member
	ms, ok := objectMembers(f.meta, buf[:])
	if !ok {
		return out, false
	}
	v, _ := get(ms, mcp.MetaProtocolVersion)
	if out.ProtocolVersion, ok = plainString(v); !ok || out.ProtocolVersion == "" {
		return out, false
	}
	if out.ClientCapabilities, ok = get(ms, mcp.MetaClientCapabilities); !ok || out.ClientCapabilities[0] != '{' {
		return out, false
	}
	if info, ok := get(ms, mcp.MetaClientInfo); ok {
		var ibuf [8]member
		ims, ok := objectMembers(info, ibuf[:])
		if !ok {
			return out, false
		}
		var impl mcp.Implementation
		for _, m := range ims {
			var dst *string
			switch string(m.key) {
			case "name":
				dst = &impl.Name
			case "version":
				dst = &impl.Version
			case "title":
				dst = &impl.Title
			default:
				if k := string(m.key); strings.EqualFold(k, "name") || strings.EqualFold(k, "version") || strings.EqualFold(k, "title") {
					return out, false // encoding/json would match it; let it decide
				}
				continue
			}
			if *dst, ok = plainString(m.value); !ok {
				return out, false
			}
		}
		if impl.Name != "" {
			out.ClientInfo = &impl
		}
	}
	return out, true
}

// topLevelMeta reports whether a message carries _meta beside params
// instead of inside it. It is only asked when _meta is missing.
func topLevelMeta(line []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return false
	}
	_, ok := top["_meta"]
	return ok
}

func (c *Conn) initialize(msg *wire.Message) Reply {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if len(msg.Params) > 0 && msg.Params[0] == '{' {
		_ = json.Unmarshal(msg.Params, &p) // a malformed version is treated as an unknown one
	}
	if len(c.srv.LegacyVersions) == 0 {
		// A modern-only server has no initialize method: it answers -32601
		// (404 on HTTP), and names the versions it speaks so that a legacy
		// client can tell why.
		e := wire.Errorf(wire.CodeMethodNotFound, "Method not found: %s; this server speaks only %s, with _meta on every request and no handshake",
			mcp.MethodInitialize, strings.Join(c.srv.versions(), ", "))
		e.Data, _ = wire.MarshalCompact(struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}{c.srv.versions(), p.ProtocolVersion})
		return c.fail(msg, msg.ID, e)
	}
	agreed := c.srv.LegacyVersions[0]
	if slices.Contains(c.srv.LegacyVersions, p.ProtocolVersion) {
		agreed = p.ProtocolVersion
	}
	c.mu.Lock()
	was := c.legacy
	c.legacy = agreed
	c.mu.Unlock()
	if was == "" {
		c.srv.logf("initialize asked for %q: this process now follows the legacy rules of %s", p.ProtocolVersion, agreed)
	}
	return c.result(msg, c.a.initialize[agreed])
}

func (c *Conn) listTools(msg *wire.Message, req *Request, f fields) Reply {
	page := 0
	if f.hasCursor && string(f.cursor) != "null" {
		var cursor string
		if json.Unmarshal(f.cursor, &cursor) != nil {
			return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInvalidParams, "Invalid params: cursor must be a string"))
		}
		var ok bool
		if page, ok = c.a.page(cursor); !ok {
			return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInvalidParams, "Invalid cursor: %q is not a cursor this server gave out; list again without one", cursor))
		}
	}
	if req.Legacy {
		return c.result(msg, c.a.legacyPages[page])
	}
	return c.result(msg, c.a.toolPages[page])
}

func (c *Conn) prepareCall(msg *wire.Message, req *Request, f fields) (Reply, *pendingCall) {
	name, ok := plainString(f.name)
	if !ok && (!f.hasName || json.Unmarshal(f.name, &name) != nil) {
		return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInvalidParams, "Invalid params: tools/call needs params.name, a string naming the tool")), nil
	}
	args := f.arguments
	if len(args) > 0 && args[0] != '{' && string(args) != "null" {
		return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInvalidParams, "Invalid params: params.arguments must be an object")), nil
	}
	i, ok := c.a.toolIndex[name]
	if !ok {
		return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInvalidParams, "Unknown tool: %s", name)), nil
	}
	return Reply{}, &pendingCall{c: c, msg: msg, req: req, tool: &c.srv.tools[i], args: args}
}

// run calls the handler and encodes what it returns, or a panic, as the
// answer.
func (p *pendingCall) run(ctx context.Context) (r Reply) {
	c, msg := p.c, p.msg
	defer func() {
		if v := recover(); v != nil {
			c.srv.logf("the handler of %s id=%s panicked: %v", msg.Method, msg.ID, v)
			r = c.fail(msg, msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: the server failed while handling %s", msg.Method))
		}
	}()
	var (
		result any
		err    error
	)
	if p.tool != nil {
		var res *mcp.CallToolResult
		res, err = p.tool.handler.CallTool(ctx, p.req, p.args)
		if err == nil && res == nil {
			err = errors.New("the tool returned no result")
		}
		if err == nil {
			var meta json.RawMessage
			if !p.req.Legacy {
				meta = c.a.serverMeta
			}
			b, err := appendToolResult(make([]byte, 0, 512), res, meta)
			if err != nil {
				c.srv.logf("%s id=%s: encoding the result: %v", msg.Method, msg.ID, err)
				return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: the result of %s could not be encoded", msg.Method))
			}
			return c.result(msg, b)
		}
	} else {
		result, err = p.meth.ServeMethod(ctx, p.req)
	}
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) {
			c.srv.logf("%s id=%s failed: %v", msg.Method, msg.ID, err)
			we = wire.Errorf(wire.CodeInternalError, "Internal error: %s failed", msg.Method)
		}
		return c.fail(msg, msg.ID, we)
	}
	b, err := wire.MarshalCompact(result)
	if err != nil {
		c.srv.logf("%s id=%s: encoding the result: %v", msg.Method, msg.ID, err)
		return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: the result of %s could not be encoded", msg.Method))
	}
	if p.tool == nil && !p.req.Legacy {
		if b, err = c.complete(b); err != nil {
			return c.fail(msg, msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: %v", err))
		}
	}
	return c.result(msg, b)
}

// complete adds resultType and the serverInfo _meta to a registered
// method's result when it lacks them.
func (c *Conn) complete(b json.RawMessage) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return nil, errors.New("a method's result must be a JSON object")
	}
	var parts [][]byte
	if _, ok := top["resultType"]; !ok {
		parts = append(parts, []byte(`"resultType":"complete"`))
	}
	if len(top) > 0 {
		parts = append(parts, b[1:len(b)-1])
	}
	if _, ok := top["_meta"]; !ok {
		parts = append(parts, append([]byte(`"_meta":`), c.a.serverMeta...))
	}
	out := append([]byte{'{'}, bytes.Join(parts, []byte{','})...)
	return append(out, '}'), nil
}

func (c *Conn) result(msg *wire.Message, result json.RawMessage) Reply {
	return Reply{Line: wire.AppendResultLine(make([]byte, 0, len(result)+len(msg.ID)+40), msg.ID, result), Message: msg}
}

func (c *Conn) fail(msg *wire.Message, id json.RawMessage, e *wire.Error) Reply {
	line, err := wire.AppendErrorLine(nil, id, e)
	if err != nil {
		// Only data that does not encode can fail; send the error without it.
		line, _ = wire.AppendErrorLine(nil, id, &wire.Error{Code: e.Code, Message: e.Message})
	}
	return Reply{Line: line, Err: e, Message: msg}
}
