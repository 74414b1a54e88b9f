package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/httpbound"
	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcphttp"
	"github.com/mcplab/mcplab/lab/mcpserver"
)

// generous bounds every wait of these tests: the verdicts come from the
// server's own deadlines and from causality, never from this one.
const generous = 60 * time.Second

// waitUntil reads a value with read, again each time changed says it may
// have changed, until done takes it, and returns it; after generous it
// fails t with what stuck says of the last value read.
func waitUntil[T any](t *testing.T, changed <-chan struct{}, read func() T, done func(T) bool, stuck func(T) string) T {
	t.Helper()
	timeout := time.After(generous)
	for {
		v := read()
		if done(v) {
			return v
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("after %v, %s", generous, stuck(v))
		}
	}
}

// gauges follows a Bodies' gauge through its hook.
type gauges struct {
	mu      sync.Mutex
	last    httpbound.Gauge
	maxHeld int64
	changed chan struct{}
}

func newGauges() *gauges { return &gauges{changed: make(chan struct{}, 1)} }

func (g *gauges) hook(v httpbound.Gauge) {
	g.mu.Lock()
	g.last = v
	g.maxHeld = max(g.maxHeld, v.Held)
	g.mu.Unlock()
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// wait returns the first gauge that meets cond.
func (g *gauges) wait(t *testing.T, what string, cond func(httpbound.Gauge) bool) httpbound.Gauge {
	t.Helper()
	return waitUntil(t, g.changed, func() httpbound.Gauge {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.last
	}, cond, func(v httpbound.Gauge) string {
		return fmt.Sprintf("still waiting for %s; the gauge is %+v", what, v)
	})
}

// blockingServer has a tool "hold" that returns once release is closed.
func blockingServer(release <-chan struct{}, entered chan<- struct{}) *mcpserver.Server {
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "t", Version: "1"}}
	s.AddTool(mcp.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`)}, mcpserver.ToolFunc(
		func(ctx context.Context, _ *mcpserver.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
			entered <- struct{}{}
			<-release
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("held")}}, nil
		}))
	return s
}

// rawPost opens a connection and sends head (the request line and headers
// up to, not including, the blank line) and then body.
func rawPost(t *testing.T, addr, head, body string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(generous))
	if _, err := io.WriteString(c, head+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
	return c
}

func readAnswer(t *testing.T, c net.Conn) (*http.Response, string) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, string(b)
}

const postHead = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"

// Each upload that cannot be read is answered 400 (503 when there is no
// room) with a JSON-RPC error whose id is null, and the connection closes.
func TestBrokenUploads(t *testing.T) {
	release, entered := make(chan struct{}), make(chan struct{}, 1)
	defer close(release)
	g := newGauges()
	bodies := httpbound.NewBodies(httpbound.Body{MaxBody: 4096, Step: 1024, MaxHeld: 3072, Timeout: 500 * time.Millisecond}, g.hook)
	srv := httptest.NewServer(&mcphttp.Handler{Server: blockingServer(release, entered), Bodies: bodies})
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	const slow = "Parse error: the body did not arrive in full within 500ms (10 bytes of the 100 its Content-Length announced came); send the whole body right after the headers"
	for _, tt := range []struct {
		name, head, body string
		closeWrite       bool
		status           int
		message          string
		code             int
	}{
		{"Content-Length too large", postHead + "Content-Length: 16777215\r\n", "", false, 400,
			"Invalid Request: the Content-Length of 16777215 bytes is more than the 4096 bytes this server reads for one message; send one JSON-RPC request per POST (a request is a few kilobytes at most)", -32600},
		{"chunked body too large", postHead + "Transfer-Encoding: chunked\r\n", "1001\r\n" + strings.Repeat("x", 4097) + "\r\n0\r\n\r\n", false, 400,
			"Invalid Request: the body is longer than the 4096 bytes this server reads for one message; send one JSON-RPC request per POST (a request is a few kilobytes at most)", -32600},
		{"chunk size past 64 bits", postHead + "Transfer-Encoding: chunked\r\n", "ffffffffffffffffff\r\n", false, 400,
			"Parse error: the body could not be read after 0 bytes: http chunk length too large; a chunked body is chunks each led by its size in hexadecimal, ended by a chunk of size 0", -32700},
		{"chunk size not hexadecimal", postHead + "Transfer-Encoding: chunked\r\n", "zz\r\n", false, 400,
			"Parse error: the body could not be read after 0 bytes: invalid byte in chunk length; a chunked body is chunks each led by its size in hexadecimal, ended by a chunk of size 0", -32700},
		{"stalled", postHead + "Content-Length: 100\r\n", "0123456789", false, 400, slow, -32700},
		{"cut", postHead + "Content-Length: 100\r\n", "0123456789", true, 400,
			"Parse error: the body was cut off after 10 bytes of the 100 its Content-Length announced; send the whole body before closing the connection", -32700},
		{"chunked, cut", postHead + "Transfer-Encoding: chunked\r\n", "5\r\nabcde\r\n", true, 400,
			"Parse error: the body was cut off after 5 bytes; send the whole body before closing the connection", -32700},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := rawPost(t, addr, tt.head, tt.body)
			if tt.closeWrite {
				c.(*net.TCPConn).CloseWrite()
			}
			resp, body := readAnswer(t, c)
			want := fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`+"\n", tt.code, tt.message)
			if resp.StatusCode != tt.status || body != want {
				t.Errorf("got %d\n%s\nwant %d\n%s", resp.StatusCode, body, tt.status, want)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !resp.Close {
				t.Errorf("Content-Type %q, Connection: close %v; want application/json, close", ct, resp.Close)
			}
			// The server closes the connection after the answer.
			if n, err := c.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("after the answer, read %d bytes, %v; want the connection closed", n, err)
			}
		})
	}
	g.wait(t, "every body given up", func(v httpbound.Gauge) bool { return v == httpbound.Gauge{} })

	// No room: a call whose 4 KiB body holds the whole pool while its
	// tool runs, then a second body that needs room past its first KiB.
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hold",` + meta + `}}`
	call += strings.Repeat(" ", 4096-len(call))
	callHead := postHead + "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: hold\r\n"
	holder := rawPost(t, addr, callHead+fmt.Sprintf("Content-Length: %d\r\n", len(call)), call)
	select {
	case <-entered:
	case <-time.After(generous):
		t.Fatalf("after %v the tool has not started; the gauge is %+v", generous, bodies.Gauge())
	}
	if v := bodies.Gauge(); v != (httpbound.Gauge{Bodies: 1, Held: 3072, Buffered: 4096}) {
		t.Fatalf("while the tool runs, the gauge is %+v; want one body holding 3072 bytes", v)
	}
	c := rawPost(t, addr, callHead+fmt.Sprintf("Content-Length: %d\r\n", len(call)), call)
	resp, body := readAnswer(t, c)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Server busy: other requests' bodies fill the 3072 bytes this server holds at once, and no room came free within 500ms; nothing of this request was done, send it again"}}` + "\n"
	if resp.StatusCode != 503 || body != want || resp.Header.Get("Retry-After") != "1" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %v\n%s\nwant 503, Retry-After: 1\n%s", resp.StatusCode, resp.Header, body, want)
	}
	release <- struct{}{}
	resp, body = readAnswer(t, holder)
	if resp.StatusCode != 200 || !strings.Contains(body, `"text":"held"`) {
		t.Errorf("the holder got %d %s", resp.StatusCode, body)
	}
	g.wait(t, "the holder's room given back", func(v httpbound.Gauge) bool { return v == httpbound.Gauge{} })
}

// A refusal before the body is read (wrong Content-Type) does not wait
// for a stalled body: the answer comes and the connection closes.
func TestRefusalDoesNotWaitForBody(t *testing.T) {
	srv := httptest.NewServer(&mcphttp.Handler{Server: &mcpserver.Server{}})
	defer srv.Close()
	c := rawPost(t, srv.Listener.Addr().String(), "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n", "0123456789")
	resp, _ := readAnswer(t, c)
	if resp.StatusCode != 415 || !resp.Close {
		t.Errorf("got %d, Connection: close %v; want 415, close", resp.StatusCode, resp.Close)
	}
	if n, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("after the answer, read %d bytes, %v; want the connection closed", n, err)
	}
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// emptyToolServer has one tool, "t", that answers an empty result.
func emptyToolServer() *mcpserver.Server {
	s := &mcpserver.Server{Info: mcp.Implementation{Name: "t", Version: "1"}}
	s.AddTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, mcpserver.ToolFunc(
		func(context.Context, *mcpserver.Request, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		}))
	return s
}

// openConns counts an HTTP server's open connections, through its
// ConnState hook.
type openConns struct {
	mu      sync.Mutex
	n       int
	changed chan struct{} // gets a value when n may have changed
}

func newOpenConns() *openConns { return &openConns{changed: make(chan struct{}, 1)} }

func (o *openConns) hook(_ net.Conn, st http.ConnState) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch st {
	case http.StateNew:
		o.n++
	case http.StateClosed, http.StateHijacked:
		o.n--
	}
	select {
	case o.changed <- struct{}{}:
	default:
	}
}

// waitNone waits, for a generous while, until no connection is open.
func (o *openConns) waitNone(t *testing.T) {
	t.Helper()
	waitUntil(t, o.changed, func() int {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.n
	}, func(n int) bool { return n == 0 }, func(n int) string {
		return fmt.Sprintf("%d connections still open", n)
	})
}

// 40 connections each send all but the last byte of a body as long as
// the default bound allows, then stall: the server holds at most the
// pool and a first step of each, a normal request is answered meanwhile,
// and when they close every byte and connection is given back.
func TestFloodOfStalledUploads(t *testing.T) {
	const floods = 40
	g := newGauges()
	bodies := httpbound.NewBodies(httpbound.Body{}, g.hook)
	l := bodies.Bound()
	s := emptyToolServer()
	srv := httptest.NewUnstartedServer(&mcphttp.Handler{Server: s, Bodies: bodies})
	open := newOpenConns()
	srv.Config.ConnState = open.hook
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	payload := strings.Repeat("x", int(l.MaxBody)-1)
	head := postHead + fmt.Sprintf("Content-Length: %d\r\n\r\n", l.MaxBody)

	base := heap()
	var writers sync.WaitGroup
	flood := make([]net.Conn, floods)
	for i := range flood {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(generous))
		flood[i] = c
		writers.Add(1)
		go func() {
			defer writers.Done()
			// Ends with an error once the test closes c, for the bodies
			// still waiting for room.
			io.WriteString(c, head)
			io.WriteString(c, payload)
		}()
	}
	// Each body past its first step takes room for all of it: as many as
	// fit in the pool are read in full, the others wait holding only their
	// first step. From here on, what the server holds stays the same until
	// the uploads end.
	each := l.MaxBody - l.Step
	fit := int(l.MaxHeld / each)
	g.wait(t, "the pool full with 40 bodies", func(v httpbound.Gauge) bool {
		return v == httpbound.Gauge{Bodies: floods, Waiting: floods - fit, Held: int64(fit) * each,
			Buffered: int64(fit)*l.MaxBody + int64(floods-fit)*l.Step}
	})
	grown := int64(heap()) - int64(base)
	bound := l.MaxHeld + floods*(l.Step+32<<10) + 2<<20
	t.Logf("40 stalled uploads of %d bytes: heap grew by %.1f MiB (bound %.1f MiB)", l.MaxBody-1, float64(grown)/(1<<20), float64(bound)/(1<<20))
	if grown > bound {
		t.Errorf("the heap grew by %d bytes for 40 stalled uploads; want at most %d", grown, bound)
	}

	// A normal request meanwhile: its body needs no room from the pool.
	status, ctype, body := post{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`,
		headers: h("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")}.do(t, srv.URL+"/mcp")
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"ttlMs":3600000,"cacheScope":"public"}}` + "\n"
	if status != 200 || ctype != "application/json" || body != want {
		t.Errorf("during the flood, tools/list got %d %q\n%s\nwant 200\n%s", status, ctype, body, want)
	}
	http.DefaultClient.CloseIdleConnections()

	for _, c := range flood {
		c.Close()
	}
	writers.Wait()
	g.wait(t, "every body given up", func(v httpbound.Gauge) bool { return v == httpbound.Gauge{} })
	open.waitNone(t)
	after := int64(heap()) - int64(base)
	t.Logf("after they closed: heap %+.1f MiB from before the flood", float64(after)/(1<<20))
	if after > 1<<20 {
		t.Errorf("after the uploads closed the heap is %d bytes above where it was; want it given back", after)
	}
}

// A long body (past the first step) takes room for all of it, is
// answered, and gives the room back; sent chunked, it takes room for the
// longest body accepted.
func TestLongBody(t *testing.T) {
	g := newGauges()
	bodies := httpbound.NewBodies(httpbound.Body{}, g.hook)
	l := bodies.Bound()
	s := emptyToolServer()
	srv := httptest.NewServer(&mcphttp.Handler{Server: s, Bodies: bodies})
	defer srv.Close()
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	list += strings.Repeat(" ", 300<<10)
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(list)
		if chunked {
			body = io.MultiReader(body) // no length known: sent chunked
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), `{"jsonrpc":"2.0","id":1,"result":`) {
			t.Errorf("chunked %v: got %d %s", chunked, resp.StatusCode, b)
		}
		g.wait(t, "the room given back", func(v httpbound.Gauge) bool { return v == httpbound.Gauge{} })
		want := int64(len(list)) - l.Step
		if chunked {
			want = l.MaxBody - l.Step
		}
		g.mu.Lock()
		if g.maxHeld != want {
			t.Errorf("chunked %v: the body held %d bytes of room; want %d", chunked, g.maxHeld, want)
		}
		g.maxHeld = 0
		g.mu.Unlock()
	}
}
