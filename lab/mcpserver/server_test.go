package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
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
	var out testkit.Buffer
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
