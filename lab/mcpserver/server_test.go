package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/schema"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

const serverMeta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"test","version":"1.0.0"}}`

func newServer() *mcpserver.Server {
	s := &mcpserver.Server{
		Info:           mcp.Implementation{Name: "test", Version: "1.0.0"},
		Instructions:   "A server for tests.",
		LegacyVersions: mcp.LegacyVersions,
		ToolsPageSize:  2,
		MaxInFlight:    1,
	}
	for _, name := range []string{"a", "b", "c"} {
		s.AddTool(mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			mcpserver.ToolFunc(func(_ context.Context, req *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
				if string(args) == `{"fail":true}` {
					return nil, errors.New("disk on fire")
				}
				if string(args) == `{"panic":true}` {
					panic("boom")
				}
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(name + " " + string(args))}}, nil
			}))
	}
	return s
}

// serve runs the server over the lines and returns what it wrote on stdout
// and on stderr.
func serve(t *testing.T, s *mcpserver.Server, lines ...string) (string, string) {
	t.Helper()
	var out, log bytes.Buffer
	s.Log = &log
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	return out.String(), log.String()
}

// checkSchema validates every answer against the official schema, in a
// session with the requests, as lab validate does.
func checkSchema(t *testing.T, requests []string, answers string) {
	t.Helper()
	v, err := schema.Default()
	if err != nil {
		t.Fatal(err)
	}
	sess := v.NewSession()
	for _, r := range requests {
		sess.Check(schema.FromClient, []byte(r))
	}
	for _, a := range strings.Split(strings.TrimSuffix(answers, "\n"), "\n") {
		if a == "" {
			continue
		}
		if vd := sess.Check(schema.FromServer, []byte(a)); vd.Err != nil {
			t.Errorf("answer %s\n%v", a, vd.Err)
		}
	}
}

func TestExactAnswers(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"instructions":"A server for tests.",` + serverMeta + `,"ttlMs":3600000,"cacheScope":"public"}}`},
		{"string id kept", `{"jsonrpc":"2.0","id":"a<b","method":"server/discover","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":"a<b","result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"instructions":"A server for tests.",` + serverMeta + `,"ttlMs":3600000,"cacheScope":"public"}}`},
		{"parse error has no id", `hello server`,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`},
		{"null id has no id", `{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or an integer, not null"}}`},
		{"readable id kept on -32600", `{"jsonrpc":"2.0","id":5,"method":5}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string, not the number 5"}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":2,"method":"tickets/get","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: tickets/get"}}`},
		{"ping is gone in 2026-07-28", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: ping"}}`},
		{"unsupported version", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}}`},
		{"no params", `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: the request has no params; every request needs params._meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities","data":{"missing":["io.modelcontextprotocol/protocolVersion","io.modelcontextprotocol/clientCapabilities"]}}}`},
		{"no _meta", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"a","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: params._meta is missing; every request needs it, with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities","data":{"missing":["io.modelcontextprotocol/protocolVersion","io.modelcontextprotocol/clientCapabilities"]}}}`},
		{"_meta at the top level", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{},` + meta + `}`,
			`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Invalid params: params._meta is missing; every request needs it, with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities; this message has _meta at its top level, but it belongs inside params","data":{"missing":["io.modelcontextprotocol/protocolVersion","io.modelcontextprotocol/clientCapabilities"]}}}`},
		{"capabilities missing", `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"Invalid params: params._meta lacks io.modelcontextprotocol/clientCapabilities","data":{"missing":["io.modelcontextprotocol/clientCapabilities"]}}}`},
		{"capabilities not an object", `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}`,
			`{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"Invalid params: in params._meta, io.modelcontextprotocol/clientCapabilities must be an object ({} when the client has none)"}}`},
		{"first page", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}],"nextCursor":"dG9vbHM6MjoyMWo1OTc5aGtiejNv",` + serverMeta + `,"ttlMs":3600000,"cacheScope":"public"}}`},
		{"last page", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"dG9vbHM6MjoyMWo1OTc5aGtiejNv",` + meta + `}}`,
			`{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","tools":[{"name":"c","inputSchema":{"type":"object"}}],` + serverMeta + `,"ttlMs":3600000,"cacheScope":"public"}}`},
		{"empty cursor is not ours", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"",` + meta + `}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid cursor: \"\" is not a cursor this server gave out; list again without one"}}`},
		{"call", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"b","arguments":{"x":1},` + meta + `}}`,
			`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"b {\"x\":1}"}],` + serverMeta + `}}`},
		{"unknown tool", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"zz",` + meta + `}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: zz"}}`},
		{"call without a name", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: tools/call needs params.name, a string naming the tool"}}`},
		{"arguments not an object", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":[1],` + meta + `}}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: params.arguments must be an object"}}`},
		{"tool fails", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"a","arguments":{"fail":true},` + meta + `}}`,
			`{"jsonrpc":"2.0","id":12,"error":{"code":-32603,"message":"Internal error: tools/call failed"}}`},
		{"tool panics", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"a","arguments":{"panic":true},` + meta + `}}`,
			`{"jsonrpc":"2.0","id":13,"error":{"code":-32603,"message":"Internal error: the server failed while handling tools/call"}}`},
		{"notification", `{"jsonrpc":"2.0","method":"server/discover","params":{` + meta + `}}`, ``},
		{"response sent to the server", `{"jsonrpc":"2.0","id":3,"result":{}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid Request: the \"method\" member is missing"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := serve(t, newServer(), tt.in)
			want := tt.want
			if want != "" {
				want += "\n"
			}
			if out != want {
				t.Errorf("sent  %s\ngot   %s\nwant  %s", tt.in, out, want)
			}
			checkSchema(t, []string{tt.in}, out)
		})
	}
}

// The _meta of one request does not carry over to the next: each request
// stands alone.
func TestNoStateBetweenRequests(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a"}}`,
	}
	out, _ := serve(t, newServer(), lines...)
	got := strings.Split(strings.TrimSpace(out), "\n")
	if len(got) != 2 || !strings.Contains(got[1], `"id":2,"error":{"code":-32602`) {
		t.Errorf("the second request, without _meta, must get -32602 although the first had it; got\n%s", out)
	}
}

func TestLegacyInitialize(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
	}
	out, log := serve(t, newServer(), lines...)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,`,
		`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"test","version":"1.0.0"},"instructions":"A server for tests."}}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}],"nextCursor":"dG9vbHM6MjoyMWo1OTc5aGtiejNv"}}`,
		`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"a {}"}]}}`,
		`{"jsonrpc":"2.0","id":6,"result":{"resultType":"complete","tools":[`,
		`{"jsonrpc":"2.0","id":7,"result":{"protocolVersion":"2025-11-25",`,
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d answers, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("answer %d:\ngot  %s\nwant %s...", i+1, got[i], want[i])
		}
	}
	if !strings.Contains(log, `initialize asked for "2025-06-18"`) {
		t.Errorf("the switch to legacy rules is not logged:\n%s", log)
	}
	checkSchema(t, lines, out)
}

func TestModernOnlyRefusesInitialize(t *testing.T) {
	s := newServer()
	s.LegacyVersions = nil
	out, _ := serve(t, s, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	// initialize is not a method of a modern-only server (-32601, so 404 on
	// HTTP, as the official conformance suite expects), and the error names
	// the versions the server speaks, as the versioning rules ask.
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: initialize; this server speaks only 2026-07-28, with _meta on every request and no handshake","data":{"supported":["2026-07-28"],"requested":"2025-06-18"}}}` + "\n"
	if out != want {
		t.Errorf("got  %swant %s", out, want)
	}
}

func TestMethodHandler(t *testing.T) {
	s := newServer()
	s.HandleMethod("resources/list", mcpserver.MethodFunc(func(context.Context, *mcpserver.Request) (any, error) {
		return map[string]any{"resources": []any{}}, nil
	}))
	s.HandleMethod("x/empty", mcpserver.MethodFunc(func(context.Context, *mcpserver.Request) (any, error) {
		return struct{}{}, nil
	}))
	out, _ := serve(t, s,
		`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{`+meta+`}}`,
		`{"jsonrpc":"2.0","id":2,"method":"x/empty","params":{`+meta+`}}`)
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","resources":[],` + serverMeta + `}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete",` + serverMeta + `}}` + "\n"
	if out != want {
		t.Errorf("got\n%swant\n%s", out, want)
	}
}

func TestNoToolsMeansNoToolMethods(t *testing.T) {
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "empty", Version: "1"}}
	out, _ := serve(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`,
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta+`}}`)
	if !strings.HasPrefix(out, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: tools/list"}}`) ||
		!strings.Contains(out, `"capabilities":{}`) {
		t.Errorf("a server without tools must not offer tools/list nor the tools capability:\n%s", out)
	}
}

func TestLongLineIsParseErrorWithoutID(t *testing.T) {
	s := newServer()
	s.MaxLine = 200
	out, _ := serve(t, s, strings.Repeat("x", 300), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","error":{"code":-32700,`) || !strings.Contains(lines[1], `"id":1,"result"`) {
		t.Errorf("an over-long line gets -32700 without an id, and the next line is served:\n%s", out)
	}
}

// A tool call running in its own goroutine is cancelled by
// notifications/cancelled, and its answer never sent.
func TestCancelledCallIsNotAnswered(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan struct{})
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "t", Version: "1"}, MaxInFlight: 4}
	s.AddTool(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		mcpserver.ToolFunc(func(ctx context.Context, _ *mcpserver.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			close(started)
			<-ctx.Done()
			close(stopped)
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("too late")}}, nil
		}))
	inR, inW := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, &out) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"slow",`+meta+`}}`+"\n")
	<-started
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s","reason":"user gave up"}}`+"\n")
	<-stopped
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta+`}}`+"\n")
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, `"id":"s"`) || !strings.Contains(got, `"id":2,"result"`) || strings.Count(got, "\n") != 1 {
		t.Errorf("want only the answer to id 2, got:\n%s", got)
	}
}

// When the context ends, ServeStdio stops even though stdin stays open.
func TestStopsWithContext(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newServer().ServeStdio(ctx, inR, io.Discard) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not stop when its context ended")
	}
}

// A client that stops reading ends the server with an error, not a hang.
func TestWriteErrorStops(t *testing.T) {
	lines := strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`+"\n", 3)
	err := newServer().ServeStdio(context.Background(), strings.NewReader(lines), failingWriter{})
	if err == nil || !strings.Contains(err.Error(), "writing an answer") {
		t.Errorf("got %v, want a write error", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestAddToolRejectsMistakes(t *testing.T) {
	for name, tool := range map[string]mcp.Tool{
		"no name":   {InputSchema: json.RawMessage(`{}`)},
		"no schema": {Name: "x"},
		"duplicate": {Name: "a", InputSchema: json.RawMessage(`{}`)},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("AddTool accepted it")
				}
			}()
			newServer().AddTool(tool, mcpserver.ToolFunc(nil))
		})
	}
}

// syncBuffer is a bytes.Buffer that a server goroutine may write while the
// test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestAddToolAfterServingPanics(t *testing.T) {
	s := newServer()
	s.NewConn()
	defer func() {
		if recover() == nil {
			t.Error("AddTool after NewConn was accepted, and the tool would be missing from tools/list")
		}
	}()
	s.AddTool(mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)}, mcpserver.ToolFunc(nil))
}
