package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplab/mcplab/lab/mcpclient"
	"github.com/mcplab/mcplab/lab/txtar"
	"github.com/mcplab/mcplab/lab/wire"
)

// Through the reference client: the accented tool is reached through the
// Base64 sentinel, a call asking for progress and logs gets both around
// its response, and a call asking for neither gets none.
func TestThroughClient(t *testing.T) {
	srv := httptest.NewServer(Handler(nil))
	defer srv.Close()
	c, err := mcpclient.Connect(context.Background(), &mcpclient.HTTP{URL: srv.URL + Path}, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 3 || tools[2].Name != "résumé" {
		t.Fatalf("tools %v, %v", tools, err)
	}
	r, err := c.CallTool(ctx, "résumé", nil, mcpclient.WithProgress(), mcpclient.WithLogLevel("info"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "1 closed, 3 open" || r.Reply.NotificationCount != 2 {
		t.Errorf("got %q with %d notifications", r.Text(), r.Reply.NotificationCount)
	}
	r, err = c.CallTool(ctx, "get_ticket", map[string]string{"id": "T-104"})
	if err != nil || r.Reply.NotificationCount != 0 || r.Text() != "T-104 (open): Nightly queue stalls; workers stop heartbeating" {
		t.Errorf("got %+v, %v", r, err)
	}
	_, err = c.CallTool(ctx, "nope", nil)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeInvalidParams {
		t.Errorf("an unknown tool: %v", err)
	}
}

// go-sdk's client against the ticket system. go-sdk 1.8.0 sends the
// headers our server checks, but puts a tool name that is not ASCII into
// Mcp-Name as raw UTF-8 instead of the =?base64?...?= form the
// specification requires, so its call of résumé is refused with -32020;
// search works. When go-sdk encodes the name, this test says so.
func TestGoSDKClient(t *testing.T) {
	srv := httptest.NewServer(Handler(nil))
	defer srv.Close()
	ctx := context.Background()
	client := gosdk.NewClient(&gosdk.Implementation{Name: "gosdk-peer", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: srv.URL + Path, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if len(names) != 3 {
		t.Errorf("tools %v", names)
	}
	r, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": "queue"}})
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := r.Content[0].(*gosdk.TextContent); !ok || text.Text != "T-104 (open): Nightly queue stalls; workers stop heartbeating" {
		t.Errorf("got %#v", r.Content[0])
	}
	_, err = cs.CallTool(ctx, &gosdk.CallToolParams{Name: "résumé"})
	if err == nil {
		t.Fatal("go-sdk now reaches résumé: it encodes Mcp-Name; update this test and the interop notes")
	}
	if !strings.Contains(err.Error(), "Mcp-Name header holds byte 0xc3") {
		t.Errorf("got %v", err)
	}
}

// TestCallAnswers plays each call of testdata/calls.txtar, in order, on
// one session, asking for progress and logs, and holds what comes back to
// the call's section, byte for byte.
func TestCallAnswers(t *testing.T) {
	data, err := os.ReadFile("testdata/calls.txtar")
	if err != nil {
		t.Fatal(err)
	}
	calls, err := txtar.Files(data)
	if err != nil || len(calls) == 0 {
		t.Fatalf("testdata/calls.txtar: no calls (%v)", err)
	}
	srv := httptest.NewServer(Handler(nil))
	defer srv.Close()
	ctx := context.Background()
	c, err := mcpclient.Connect(ctx, &mcpclient.HTTP{URL: srv.URL + Path}, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, call := range calls {
		tool, args, _ := strings.Cut(call.Name, " ")
		if got := callTranscript(ctx, c, tool, args); got+"\n" != string(call.Data) {
			t.Errorf("line %d, %s:\ngot  %s\nwant %s", call.Line, call.Name, got, call.Data)
		}
	}
}

// callTranscript calls the tool name with the arguments args (JSON, or
// empty for none), asking for progress and logs, and writes what came
// back: each notification's method and params, then the result or error.
func callTranscript(ctx context.Context, c *mcpclient.Client, name, args string) string {
	quoted, _ := json.Marshal(name)
	params := `{"name":` + string(quoted)
	if args != "" {
		params += `,"arguments":` + args
	}
	r, err := c.Call(ctx, "tools/call", json.RawMessage(params+"}"), mcpclient.WithProgress(), mcpclient.WithLogLevel("info"))
	var b strings.Builder
	if r != nil {
		for _, n := range r.Notifications {
			fmt.Fprintf(&b, "%s %s\n", n.Method, n.Params)
		}
		fmt.Fprintf(&b, "result %s", r.Result)
	}
	var we *wire.Error
	if errors.As(err, &we) {
		fmt.Fprintf(&b, "error %d %s", we.Code, we.Message)
	} else if err != nil {
		fmt.Fprintf(&b, "failed %v", err)
	}
	return b.String()
}
