package mcpclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/wire"
)

const metaJSON = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcplab","version":"dev"}`

func TestRequestBytes(t *testing.T) {
	c, f := newPipeClient(t, Options{})
	ctx := context.Background()
	tests := []struct {
		method string
		params any
		opts   []CallOption
		want   string
	}{
		{"tools/list", nil, nil,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + metaJSON + `}}}`},
		{"tools/call", map[string]any{"name": "search", "arguments": map[string]string{"query": "a<b"}}, nil,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"query":"a<b"},"name":"search",` + metaJSON + `}}}`},
		{"tools/call", map[string]any{"name": "slow"}, []CallOption{WithProgress(), WithLogLevel("info")},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow",` + metaJSON + `,"io.modelcontextprotocol/logLevel":"info","progressToken":3}}}`},
		{"server/discover", struct{}{}, nil,
			`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{` + metaJSON + `}}}`},
	}
	for _, tt := range tests {
		done := goCall(c, ctx, tt.method, tt.params, tt.opts...)
		got := f.next()
		if got != tt.want {
			t.Errorf("%s sent\n%s\nwant\n%s", tt.method, got, tt.want)
		}
		f.send(`{"jsonrpc":"2.0","id":` + idOf(t, got) + `,"result":{"resultType":"complete"}}` + "\n")
		if r := wait(t, done); r.err != nil {
			t.Errorf("%s: %v", tt.method, r.err)
		}
	}
}

func TestParamsRefused(t *testing.T) {
	c, _ := newPipeClient(t, Options{})
	for _, p := range []any{[]int{1}, "text", map[string]any{"_meta": map[string]any{}}} {
		if _, err := c.Call(context.Background(), "x", p); err == nil {
			t.Errorf("params %v were accepted", p)
		}
	}
}

// Answers come back out of order, split across writes, with a notification
// in between: each reaches the request whose id it carries.
func TestCorrelationByID(t *testing.T) {
	c, f := newPipeClient(t, Options{})
	ctx := context.Background()
	first := goCall(c, ctx, "tools/call", map[string]string{"name": "a"})
	id1 := idOf(t, f.next())
	second := goCall(c, ctx, "tools/call", map[string]string{"name": "b"})
	id2 := idOf(t, f.next())
	if id1 != "1" || id2 != "2" {
		t.Fatalf("ids %s, %s; want 1, 2", id1, id2)
	}
	f.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}` + "\n")
	f.send(`{"jsonrpc":"2.0","id":2,"res`)
	f.send(`ult":{"resultType":"complete","content":[{"type":"text","text":"B"}]}}` + "\n" + `{"jsonrpc":"2.0",`)
	f.send(`"id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"A"}]}}` + "\n")
	r2, r1 := wait(t, second), wait(t, first)
	if r1.err != nil || r2.err != nil {
		t.Fatal(r1.err, r2.err)
	}
	if !strings.Contains(string(r1.reply.Result), `"A"`) || !strings.Contains(string(r2.reply.Result), `"B"`) {
		t.Errorf("results crossed: 1 got %s, 2 got %s", r1.reply.Result, r2.reply.Result)
	}
}

// An id of another type is not our id: "1" does not answer 1.
func TestStringIDIsNotIntegerID(t *testing.T) {
	log := &logRecorder{}
	c, f := newPipeClient(t, Options{Logf: log.logf, Timeout: patience})
	done := goCall(c, context.Background(), "tools/list", nil)
	f.next()
	f.send(`{"jsonrpc":"2.0","id":"1","result":{"resultType":"complete","tools":[]}}` + "\n")
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":["right"]}}` + "\n")
	r := wait(t, done)
	if r.err != nil || !strings.Contains(string(r.reply.Result), "right") {
		t.Fatalf("got %+v, %v", r.reply, r.err)
	}
	if !log.has(`dropped a response with id "1"`) {
		t.Errorf("the stray answer was not noted: %q", log.lines)
	}
}

func TestTimeoutCancelsAndDropsLateAnswer(t *testing.T) {
	log := &logRecorder{}
	c, f := newPipeClient(t, Options{Logf: log.logf})
	ctx := newDeadline()
	done := goCall(c, ctx, "tools/call", map[string]string{"name": "never"})
	f.next()
	ctx.pass()
	r := wait(t, done)
	var te *TimeoutError
	if !errors.As(r.err, &te) || !errors.Is(r.err, context.DeadlineExceeded) || te.ID != 1 {
		t.Fatalf("got %v, want a timeout of id 1", r.err)
	}
	want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"the client timed out waiting for the answer"}}`
	if got := f.next(); got != want {
		t.Errorf("after the timeout the client sent\n%s\nwant\n%s", got, want)
	}
	// The answer comes late: it is dropped, and the connection still works.
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}` + "\n")
	next := goCall(c, context.Background(), "tools/list", nil)
	if id := idOf(t, f.next()); id != "2" {
		t.Fatalf("the next request has id %s, want 2", id)
	}
	f.send(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[]}}` + "\n")
	if r := wait(t, next); r.err != nil {
		t.Fatal(r.err)
	}
	if !log.has("dropped a response with id 1") {
		t.Errorf("the late answer was not noted: %q", log.lines)
	}
}

func TestClientTimeoutOption(t *testing.T) {
	c, _ := newPipeClient(t, Options{Timeout: time.Millisecond})
	done := goCall(c, context.Background(), "tools/list", nil)
	if r := wait(t, done); !errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a timeout", r.err)
	}
}

// When the server's output ends, every waiting request fails at once, and
// so does every later one.
func TestBrokenConnectionFailsAllAtOnce(t *testing.T) {
	c, f := newPipeClient(t, Options{Timeout: time.Hour})
	ctx := context.Background()
	a := goCall(c, ctx, "tools/list", nil)
	f.next()
	b := goCall(c, ctx, "tools/call", map[string]string{"name": "x"})
	f.next()
	f.out.Close()
	for _, ch := range []<-chan result{a, b} {
		r := wait(t, ch)
		var ce *ConnError
		if !errors.As(r.err, &ce) || !strings.Contains(r.err.Error(), "closed its output") {
			t.Errorf("got %v, want the connection's end", r.err)
		}
	}
	if _, err := c.Call(ctx, "tools/list", nil); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("a call after the end got %v", err)
	}
}

func TestCloseFailsWaiting(t *testing.T) {
	c, f := newPipeClient(t, Options{Timeout: time.Hour})
	a := goCall(c, context.Background(), "tools/list", nil)
	f.next()
	c.Close()
	if r := wait(t, a); !errors.Is(r.err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", r.err)
	}
}

func TestAnswers(t *testing.T) {
	tests := []struct {
		name, answer string
		check        func(error) bool
	}{
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool: x"}}`,
			func(err error) bool {
				var we *wire.Error
				return errors.As(err, &we) && we.Code == -32602
			}},
		{"input required", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`,
			func(err error) bool {
				var ie *InputRequiredError
				return errors.As(err, &ie)
			}},
		{"unknown result type", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"later"}}`,
			func(err error) bool { return err != nil && strings.Contains(err.Error(), `"later"`) }},
		{"legacy result", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			func(err error) bool { return err == nil }},
		{"result not an object", `{"jsonrpc":"2.0","id":1,"result":[1]}`,
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "not a JSON object") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f := newPipeClient(t, Options{})
			done := goCall(c, context.Background(), "tools/call", map[string]string{"name": "x"})
			f.next()
			f.send(tt.answer + "\n")
			if r := wait(t, done); !tt.check(r.err) {
				t.Errorf("got %v", r.err)
			}
		})
	}
}

// A line that is not a message is noted and skipped; the connection lives.
func TestJunkLineIsNotFatal(t *testing.T) {
	log := &logRecorder{}
	c, f := newPipeClient(t, Options{Logf: log.logf})
	done := goCall(c, context.Background(), "tools/list", nil)
	f.next()
	f.send("Server listening on stdio\n")
	f.send(`{"jsonrpc":"2.0","id":7,"method":"roots/list"}` + "\n")
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}` + "\n")
	if r := wait(t, done); r.err != nil {
		t.Fatal(r.err)
	}
	if !log.has("not JSON") || !log.has("never sends requests") {
		t.Errorf("notes: %q", log.lines)
	}
}

func TestProgressNotificationsCounted(t *testing.T) {
	var others []string
	c, f := newPipeClient(t, Options{OnNotification: func(n *wire.Message) { others = append(others, n.Method) }})
	done := goCall(c, context.Background(), "tools/call", map[string]string{"name": "slow"}, WithProgress())
	f.next()
	f.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}` + "\n")
	f.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":99,"progress":1}}` + "\n")
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}` + "\n")
	r := wait(t, done)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.reply.NotificationCount != 1 || len(r.reply.Notifications) != 1 {
		t.Errorf("counted %d notifications, want 1", r.reply.NotificationCount)
	}
	if len(others) != 1 {
		t.Errorf("the stray progress went to %v", others)
	}
}
