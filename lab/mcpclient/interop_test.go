package mcpclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplab/mcplab/lab/mcpclient"
	"github.com/mcplab/mcplab/lab/wire"
)

// A go-sdk server with one tool, "greet", that says hello in French.
func gosdkServer() *gosdk.Server {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-peer", Version: "0"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	gosdk.AddTool(s, &gosdk.Tool{Name: "greet", Description: "Greets someone."},
		func(_ context.Context, _ *gosdk.CallToolRequest, a in) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "bonjour, " + a.Name}}}, nil, nil
		})
	return s
}

// go-sdk 1.8.0's server compares Mcp-Name with the body without decoding
// the =?base64?...?= form, so it refuses a correct call of a tool whose
// name is not ASCII. When go-sdk decodes it, this test says so.
func TestInteropGoSDKSentinel(t *testing.T) {
	s := gosdkServer()
	gosdk.AddTool(s, &gosdk.Tool{Name: "créer"}, func(context.Context, *gosdk.CallToolRequest, struct{}) (*gosdk.CallToolResult, any, error) {
		return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "créé"}}}, nil, nil
	})
	srv := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, &gosdk.StreamableHTTPOptions{Stateless: true}))
	defer srv.Close()
	c, err := mcpclient.Connect(context.Background(), &mcpclient.HTTP{URL: srv.URL}, mcpclient.Options{Timeout: patienceInterop})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(context.Background(), "créer", nil)
	if err == nil {
		t.Fatal("go-sdk now decodes the sentinel in Mcp-Name; update this test and the interop notes")
	}
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeHeaderMismatch || !strings.Contains(we.Message, "=?base64?Y3LDqWVy?=") {
		t.Errorf("got %v", err)
	}
}

// checkPeer lists the peer's tools and calls one through the reference
// client.
func checkPeer(t *testing.T, tr mcpclient.Transport) { checkPeerNamed(t, tr, "gosdk-peer") }

func checkPeerNamed(t *testing.T, tr mcpclient.Transport, serverName string) {
	t.Helper()
	ctx := context.Background()
	c, err := mcpclient.Connect(ctx, tr, mcpclient.Options{Timeout: patienceInterop})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d, err := c.Discover(ctx); err != nil {
		t.Errorf("server/discover: %v", err)
	} else if d.ServerInfo == nil || d.ServerInfo.Name != serverName {
		t.Errorf("server/discover: %+v", d)
	}
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "greet" {
		t.Fatalf("tools/list: %v, %v", tools, err)
	}
	r, err := c.CallTool(ctx, "greet", map[string]string{"name": "Ada"}, mcpclient.WithProgress())
	if err != nil || r.IsError || r.Text() != "bonjour, Ada" {
		t.Fatalf("tools/call: %+v, %v", r, err)
	}
}

const patienceInterop = 10 * time.Second

// pipes are the two OS pipes between a client and a server in the same
// process, as a child process would have them.
type pipes struct {
	serverIn, serverOut, clientIn, clientOut *os.File
}

func newPipes(tb testing.TB) pipes {
	tb.Helper()
	var p pipes
	var err error
	if p.serverIn, p.clientOut, err = os.Pipe(); err != nil {
		tb.Fatal(err)
	}
	if p.clientIn, p.serverOut, err = os.Pipe(); err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestInteropGoSDKStdio(t *testing.T) {
	p := newPipes(t)
	serverIn, serverOut, clientIn, clientOut := p.serverIn, p.serverOut, p.clientIn, p.clientOut
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- gosdkServer().Run(ctx, &gosdk.IOTransport{Reader: serverIn, Writer: serverOut}) }()
	checkPeer(t, mcpclient.Stream{R: clientIn, W: clientOut})
	cancel()
	<-done
	clientIn.Close()
}

// go-sdk's stateless HTTP handler speaks 2026-07-28, answering with an
// event stream or, with JSONResponse, with JSON.
func TestInteropGoSDKHTTP(t *testing.T) {
	for _, json := range []bool{false, true} {
		s := gosdkServer()
		opts := &gosdk.StreamableHTTPOptions{Stateless: true, JSONResponse: json}
		srv := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, opts))
		checkPeer(t, &mcpclient.HTTP{URL: srv.URL})
		srv.Close()
	}
}

// A stateful go-sdk handler refuses 2026-07-28 (all but server/discover)
// with -32022 listing older revisions; a client of 2026-07-28 only can but
// say so.
func TestInteropGoSDKStatefulHTTP(t *testing.T) {
	s := gosdkServer()
	srv := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, nil))
	defer srv.Close()
	c, err := mcpclient.Connect(context.Background(), &mcpclient.HTTP{URL: srv.URL}, mcpclient.Options{Timeout: patienceInterop})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ListTools(context.Background())
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeUnsupportedProtocolVersion || !strings.Contains(string(we.Data), `"requested":"2026-07-28"`) {
		t.Fatalf("got %v", err)
	}
}

// An mcp-go server with the same "greet" tool.
func mcpgoServer() *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("mcpgo-peer", "0")
	s.AddTool(mcpgo.NewTool("greet", mcpgo.WithDescription("Greets someone."), mcpgo.WithString("name")),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("bonjour, " + req.GetString("name", "")), nil
		})
	return s
}

func TestInteropMCPGoStdio(t *testing.T) {
	p := newPipes(t)
	serverIn, serverOut, clientIn, clientOut := p.serverIn, p.serverOut, p.clientIn, p.clientOut
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- mcpgoserver.NewStdioServer(mcpgoServer()).Listen(ctx, serverIn, serverOut) }()
	checkPeerNamed(t, mcpclient.Stream{R: clientIn, W: clientOut}, "mcpgo-peer")
	clientOut.Close()
	cancel()
	<-done
	clientIn.Close()
}

func TestInteropMCPGoHTTP(t *testing.T) {
	srv := httptest.NewServer(mcpgoserver.NewStreamableHTTPServer(mcpgoServer(), mcpgoserver.WithStateLess(true)))
	defer srv.Close()
	checkPeerNamed(t, &mcpclient.HTTP{URL: srv.URL}, "mcpgo-peer")
}
