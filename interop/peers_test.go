package interop_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"testing"

	mcpgotypes "github.com/mark3labs/mcp-go/mcp"
	mcpgo "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	labserver "github.com/mcplab/mcplab/lab/server"
)

// A peer is one of the stdio servers under test: serve runs one session over
// in and out until in ends, the server gives up on it, or ctx is done.
type peer struct {
	name  string
	serve func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error
}

// peers returns the three servers compared here, the lab's own first.
//
// mcp-go keeps its stdio session in a package-level variable, so two mcp-go
// servers must never run at once in one process: every test and benchmark in
// this package runs its sessions one after another.
func peers() []peer {
	return []peer{
		{name: "lab", serve: serveLab},
		{name: "go-sdk", serve: serveGoSDK},
		{name: "mcp-go", serve: serveMCPGo},
	}
}

// peerNamed returns the peer called name from peers.
func peerNamed(tb testing.TB, name string) peer {
	tb.Helper()
	for _, p := range peers() {
		if p.name == name {
			return p
		}
	}
	tb.Fatalf("no peer called %q", name)
	return peer{}
}

// serveLab runs the lab's reference server, the one `lab serve reader` runs.
func serveLab(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	srv := &labserver.Server{Handler: labserver.Reader{}, Log: io.Discard}
	return srv.Serve(ctx, in, out)
}

// holdTool names the one tool both SDK servers carry. Its handler returns
// only once its request's context is cancelled, which both SDKs do when
// their input ends, so a call to it is certain to be still running then.
const holdTool = "hold"

// serveGoSDK runs an official go-sdk server over an IOTransport, the
// transport its StdioTransport uses on os.Stdin and os.Stdout.
func serveGoSDK(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	srv := gosdk.NewServer(&gosdk.Implementation{Name: "interop-go-sdk", Version: "v0.0.0"}, nil)
	gosdk.AddTool(srv, &gosdk.Tool{Name: holdTool, Description: "returns once its request is cancelled"},
		func(ctx context.Context, _ *gosdk.CallToolRequest, _ struct{}) (*gosdk.CallToolResult, any, error) {
			<-ctx.Done()
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "held"}}}, nil, nil
		})
	return srv.Run(ctx, &gosdk.IOTransport{Reader: in, Writer: out})
}

// serveMCPGo runs an mcp-go server through its stdio loop, with its error
// log (stderr by default) silenced.
func serveMCPGo(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	core := mcpgo.NewMCPServer("interop-mcp-go", "v0.0.0")
	core.AddTool(mcpgotypes.NewTool(holdTool, mcpgotypes.WithDescription("returns once its request is cancelled")),
		func(ctx context.Context, _ mcpgotypes.CallToolRequest) (*mcpgotypes.CallToolResult, error) {
			<-ctx.Done()
			return mcpgotypes.NewToolResultText("held"), nil
		})
	srv := mcpgo.NewStdioServer(core)
	srv.SetErrorLogger(log.New(io.Discard, "", 0))
	return srv.Listen(ctx, in, out)
}

// errServerStopped is what a write gets once the server under test has
// returned: io.Pipe has no buffer, so without it a write nobody reads would
// block for ever.
var errServerStopped = errors.New("the server has stopped and reads no more input")

// session is one server running in-process behind two io.Pipes. The test
// writes the server's input to in and reads its output from out.
//
// io.Pipe has no buffer: a server's Write blocks until the test reads it.
// Servers that answer on their read loop (the lab's -32700, mcp-go's) then
// stop reading input, so a test must read the output while it writes, as
// lines does.
type session struct {
	in   *io.PipeWriter
	inR  *io.PipeReader
	out  *io.PipeReader
	done chan struct{} // closed once serve has returned and both pipes are shut
	err  error         // what serve returned; read it only after done
}

// start runs p's server on fresh pipes. When serve returns, the input pipe is
// closed with errServerStopped and the output pipe with EOF, so neither a
// pending write nor a pending read can hang. The server is stopped, and
// awaited, when the test ends.
func start(tb testing.TB, ctx context.Context, p peer) *session {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{in: inW, inR: inR, out: outR, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(s.done)
		s.err = p.serve(ctx, inR, outW)
		inR.CloseWithError(errServerStopped)
		outW.Close()
	}()
	tb.Cleanup(func() {
		cancel()
		<-s.done // every serve function returns once its context is done
		outR.Close()
	})
	return s
}

// write hands chunk to the server as a single Write. It returns early with
// ctx's error if the server neither reads the chunk nor stops before ctx is
// done, and then closes the input so the Write cannot linger.
func (s *session) write(ctx context.Context, chunk string) error {
	res := make(chan error, 1)
	go func() {
		_, err := io.WriteString(s.in, chunk)
		res <- err
	}()
	select {
	case err := <-res:
		return err
	case <-ctx.Done():
		s.inR.CloseWithError(ctx.Err())
		<-res
		return fmt.Errorf("the server read none of %q: %w", chunk, ctx.Err())
	}
}

// lines reads the server's output in the background for as long as the
// server writes, and returns a channel of its lines, each with its newline.
// An unterminated last line is sent without one. The channel is closed when
// the output ends, that is once the server has returned. Call it once.
func (s *session) lines() <-chan string {
	ch := make(chan string, 256)
	go func() {
		defer close(ch)
		br := bufio.NewReader(s.out)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				ch <- line
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// next returns the next line from lines, io.EOF once the server's output has
// ended, or ctx's error if no line comes in time.
func next(ctx context.Context, lines <-chan string) (string, error) {
	select {
	case line, ok := <-lines:
		if !ok {
			return "", io.EOF
		}
		return line, nil
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for the server's next line: %w", ctx.Err())
	}
}

// initializeLine is a legacy MCP initialize request at revision 2025-11-25,
// the newest revision that still opens a session with initialize.
const initializeLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcplab-interop","version":"0.0.0"}}}` + "\n"

// initializedLine is the notification a client sends once it has the answer
// to initialize.
const initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// labInitializeAnswer is the lab's exact answer to initializeLine: lesson 1's
// reader server knows only ping and wait.
const labInitializeAnswer = `{"jsonrpc":"2.0","id":"init","error":{"code":-32601,"message":"Method not found: \"initialize\" (this server knows ping and wait)"}}` + "\n"

// handshake opens an MCP session the legacy way: initialize, wait for the
// answer, then notifications/initialized. It returns the answer to
// initialize. Every server gets the same bytes; the SDK servers need them
// before other requests, the lab's server answers initialize with -32601.
func handshake(ctx context.Context, s *session, lines <-chan string) (string, error) {
	if err := s.write(ctx, initializeLine); err != nil {
		return "", fmt.Errorf("sending initialize: %w", err)
	}
	answer, err := next(ctx, lines)
	if err != nil {
		return "", fmt.Errorf("reading the answer to initialize: %w", err)
	}
	if err := s.write(ctx, initializedLine); err != nil {
		return answer, fmt.Errorf("sending notifications/initialized: %w", err)
	}
	return answer, nil
}

// checkInitializeAnswer checks a peer's answer to initializeLine: the lab's
// exact -32601, or an SDK's result that agrees to revision 2025-11-25.
func checkInitializeAnswer(name, answer string) error {
	if name == "lab" {
		if answer != labInitializeAnswer {
			return fmt.Errorf("the lab answered initialize with %q, want %q", answer, labInitializeAnswer)
		}
		return nil
	}
	var resp struct {
		ID     string `json:"id"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(answer), &resp); err != nil {
		return fmt.Errorf("%s answered initialize with %q, which is not a response: %w", name, answer, err)
	}
	if resp.ID != "init" || resp.Result.ProtocolVersion != "2025-11-25" {
		return fmt.Errorf("%s answered initialize with %q, want id \"init\" and protocolVersion 2025-11-25", name, answer)
	}
	return nil
}
