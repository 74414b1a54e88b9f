package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcphttp"
	"github.com/mcplab/mcplab/lab/mcpserver"
)

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// testServer has one tool, "créer", that sends a progress notification
// and leaves a log notification for after its result.
func testServer(t *testing.T) string {
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "t", Version: "1"}}
	s.AddTool(mcp.Tool{Name: "créer", InputSchema: json.RawMessage(`{"type":"object"}`)}, mcpserver.ToolFunc(
		func(ctx context.Context, _ *mcpserver.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			mcphttp.Progress(ctx, 1, 2, "working")
			mcphttp.LogAfter(ctx, "info", "t", "done")
			mcphttp.LogAfter(ctx, "debug", "t", "too chatty")
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("made")}}, nil
		}))
	srv := httptest.NewServer(&mcphttp.Handler{Server: s, EventStream: func(m string) bool { return m == "tools/call" }})
	t.Cleanup(srv.Close)
	return srv.URL
}

type post struct {
	method  string
	headers map[string]string
	body    string
}

func (p post) do(t *testing.T, url string) (int, string, string) {
	t.Helper()
	method := p.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, url, strings.NewReader(p.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range p.headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header[k] = []string{v}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

func h(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestHandler(t *testing.T) {
	url := testServer(t)
	port := url[strings.LastIndex(url, ":")+1:] // httptest's URL is http://127.0.0.1:PORT
	otherPort := "1"
	if port == "1" {
		otherPort = "2"
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"créer",` + meta + `}}`
	callWithMeta := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"créer","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1","io.modelcontextprotocol/logLevel":"info"}}}`
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	good := h("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?Y3LDqWVy?=")
	with := func(kv ...string) map[string]string {
		m := h(kv...)
		for k, v := range good {
			if _, ok := m[k]; !ok {
				m[k] = v
			}
		}
		return m
	}
	for _, tt := range []struct {
		name       string
		post       post
		wantStatus int
		wantType   string
		wantBody   string
	}{
		{"list answers JSON", post{body: list, headers: h("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")}, 200, "application/json",
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"créer","inputSchema":{"type":"object"}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"ttlMs":3600000,"cacheScope":"public"}}` + "\n"},
		{"call without asking for notifications", post{body: call, headers: good}, 200, "text/event-stream",
			"event: message\ndata: " + `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"made"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}}}` + "\n\n"},
		{"call asking for progress and logs", post{body: callWithMeta, headers: good}, 200, "text/event-stream",
			"event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2,"message":"working"}}` + "\n\n" +
				"event: message\ndata: " + `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"made"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}}}` + "\n\n" +
				"event: message\ndata: " + `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"t","data":"done"}}` + "\n\n"},
		{"header names in any case", post{body: call, headers: h("mcp-protocol-version", "2026-07-28", "MCP-METHOD", "tools/call", "mcp-name", "=?base64?Y3LDqWVy?=")}, 200, "text/event-stream", ""},
		{"method value case matters", post{body: call, headers: with("Mcp-Method", "TOOLS/CALL")}, 400, "application/json",
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: Mcp-Method header value 'TOOLS/CALL' does not match body value 'tools/call'"}}` + "\n"},
		{"name mismatch", post{body: call, headers: with("Mcp-Name", "creer")}, 400, "application/json",
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header value 'creer' does not match body value 'créer'"}}` + "\n"},
		{"header says list, body says call", post{body: call, headers: with("Mcp-Method", "tools/list")}, 400, "application/json",
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: Mcp-Method header value 'tools/list' does not match body value 'tools/call'"}}` + "\n"},
		{"raw UTF-8 in Mcp-Name", post{body: call, headers: with("Mcp-Name", "créer")}, 400, "application/json", "byte 0xc3"},
		{"bad Base64", post{body: call, headers: with("Mcp-Name", "=?base64?***?=")}, 400, "application/json", "not valid Base64"},
		{"missing Mcp-Name", post{body: call, headers: with("Mcp-Name", "")}, 400, "application/json", "the Mcp-Name header is missing"},
		{"missing version header", post{body: call, headers: with("MCP-Protocol-Version", "")}, 400, "application/json", "the MCP-Protocol-Version header is missing"},
		{"version header differs from body", post{body: call, headers: with("MCP-Protocol-Version", "2025-11-25")}, 400, "application/json", "MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'"},
		{"padded name is trimmed", post{body: strings.Replace(call, "créer", "foo", 1), headers: with("Mcp-Name", " foo ")}, 400, "application/json", "Unknown tool: foo"},
		{"unknown method", post{body: `{"jsonrpc":"2.0","id":2,"method":"nope/nope","params":{` + meta + `}}`, headers: h("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "nope/nope")}, 404, "application/json", "-32601"},
		{"missing _meta", post{body: `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, headers: h("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")}, 400, "application/json", "-32602"},
		{"notification", post{body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`}, 202, "", ""},
		{"not JSON", post{body: `{`}, 400, "application/json", `{"jsonrpc":"2.0","error":{"code":-32700`},
		{"GET", post{method: http.MethodGet}, 405, "text/plain; charset=utf-8", "POST only"},
		{"foreign origin", post{body: list, headers: with("Origin", "https://evil.example")}, 403, "application/json", "may not use this local server"},
		{"local origin", post{body: list, headers: h("Origin", "http://localhost:"+port, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")}, 200, "application/json", ""},
		{"local origin on another port", post{body: list, headers: h("Origin", "http://localhost:"+otherPort, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")}, 403, "application/json", "may not use this local server"},
		{"rebound host name", post{body: list, headers: h("Host", "evil.example:"+port, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")}, 403, "application/json", `host \"evil.example:`},
		{"unknown log level", post{body: strings.Replace(callWithMeta, `"info"`, `"loud"`, 1), headers: good}, 400, "application/json",
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: \"loud\" is not a log level; the levels are debug, info, notice, warning, error, critical, alert, emergency"}}` + "\n"},
		{"wrong content type", post{body: list, headers: with("Content-Type", "text/plain")}, 415, "application/json", "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, ctype, body := tt.post.do(t, url)
			if status != tt.wantStatus || ctype != tt.wantType {
				t.Errorf("got %d %q, want %d %q; body %s", status, ctype, tt.wantStatus, tt.wantType, body)
			}
			switch {
			case strings.HasPrefix(tt.wantBody, "{") || strings.HasPrefix(tt.wantBody, "event:"):
				if !strings.HasPrefix(tt.wantBody, `{"jsonrpc":"2.0","error"`) && body != tt.wantBody {
					t.Errorf("body\n%s\nwant\n%s", body, tt.wantBody)
				} else if !strings.HasPrefix(body, tt.wantBody) {
					t.Errorf("body\n%s\nwant it to start\n%s", body, tt.wantBody)
				}
			case !strings.Contains(body, tt.wantBody):
				t.Errorf("body %s does not say %q", body, tt.wantBody)
			}
		})
	}
}

func TestDecodeHeaderValue(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界"},
		{"=?base64?IHBhZGRlZCA=?=", " padded "},
		{"=?base64?bGluZTEKbGluZTI=?=", "line1\nline2"},
		{"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?="},
		{"=?BASE64?abc?=", "=?BASE64?abc?="}, // the sentinel is lower case only
	} {
		got, err := mcphttp.DecodeHeaderValue(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("DecodeHeaderValue(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
