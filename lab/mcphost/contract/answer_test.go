package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/mcphost"
	"github.com/mcplab/mcplab/lab/wire"
)

// fakeHost is a Host with fixed tools and servers whose calls echo what
// they were given.
type fakeHost struct {
	tools   []*mcphost.Tool
	servers []mcphost.ServerStatus
}

func (f *fakeHost) Tools() []*mcphost.Tool          { return f.tools }
func (f *fakeHost) Servers() []mcphost.ServerStatus { return f.servers }
func (f *fakeHost) Call(_ context.Context, name string, arguments json.RawMessage) mcphost.Result {
	return mcphost.Result{Text: fmt.Sprintf("%s with %s", name, arguments), IsError: name == "mcp__a__fails"}
}

// TestAnswers pins the answer to each kind of command line.
func TestAnswers(t *testing.T) {
	h := &fakeHost{
		tools:   []*mcphost.Tool{{Name: "mcp__a__t", Description: "T.", NeedsApproval: true}},
		servers: []mcphost.ServerStatus{{Alias: "a", Tools: 1}, {Alias: "b", Err: failure("it exited")}},
	}
	for _, c := range []struct{ in, want string }{
		{`{"command":"list_tools"}`, `{"tools":[{"name":"mcp__a__t","description":"T.","needsApproval":true}],"failedServers":[{"server":"b","error":"it exited"}]}`},
		{`{"command":"call_tool","name":"mcp__a__t","arguments":{"x":1}}`, `{"text":"mcp__a__t with {\"x\":1}","isError":false}`},
		{`{"command":"call_tool","name":"mcp__a__fails","arguments":null}`, `{"text":"mcp__a__fails with null","isError":true}`},
		{`{"command":"call_tool","name":"mcp__a__t"}`, `{"text":"mcp__a__t with ","isError":false}`},
		{`{"command":"call_tool","arguments":{}}`, `{"error":"call_tool needs \"name\", the tool's namespaced name"}`},
		{`{"command":"call_tool","name":"mcp__a__t","arguments":"x"}`, `{"error":"\"arguments\" must be an object"}`},
		{`{"name":"mcp__a__t"}`, `{"error":"the command has no \"command\"; use \"list_tools\" or \"call_tool\""}`},
		{`{"command":"list_tools","page":2}`, `{"error":"the command is not a JSON object with command, name and arguments: json: unknown field \"page\""}`},
		{`list_tools`, `{"error":"the command is not a JSON object with command, name and arguments: invalid character 'l' looking for beginning of value"}`},
	} {
		if got := serve(t, h, c.in+"\n"); got != c.want+"\n" {
			t.Errorf("%s:\ngot  %s\nwant %s", c.in, got, c.want)
		}
	}
	empty := serve(t, &fakeHost{}, `{"command":"list_tools"}`)
	if want := `{"tools":[],"failedServers":[]}` + "\n"; empty != want {
		t.Errorf("no tools, no servers, no newline at the end: got %s, want %s", empty, want)
	}
}

// repeated yields the byte b forever.
type repeated byte

func (r repeated) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestLineTooLong answers a line over the limit with an error, in bounded
// memory, and goes on to the next command.
func TestLineTooLong(t *testing.T) {
	long := io.LimitReader(repeated('x'), wire.DefaultMaxLine+1)
	in := io.MultiReader(long, strings.NewReader("\n"+`{"command":"nope"}`+"\n"))
	var out strings.Builder
	if err := Serve(context.Background(), &fakeHost{}, in, &out); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"error":"line of %d bytes is longer than the %d-byte limit; it was dropped"}`, wire.DefaultMaxLine+1, wire.DefaultMaxLine) + "\n" +
		`{"error":"unknown command \"nope\"; use \"list_tools\" or \"call_tool\""}` + "\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestServeEnds returns nil when ctx ends while a read waits, and an error
// that says which side failed when the input or the output breaks.
func TestServeEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, &fakeHost{}, pr, io.Discard) }()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("cancelled while reading: %v, want nil", err)
	}

	broken := io.MultiReader(strings.NewReader(`{"command":"list_tools"}`+"\n"), iotestErr{})
	var out strings.Builder
	err := Serve(context.Background(), &fakeHost{}, broken, &out)
	if err == nil || err.Error() != "reading commands: reading a line: the disk is gone" || out.String() != `{"tools":[],"failedServers":[]}`+"\n" {
		t.Errorf("a broken input: %v, wrote %q", err, out.String())
	}

	err = Serve(context.Background(), &fakeHost{}, strings.NewReader(`{"command":"list_tools"}`+"\n"), failingWriter{})
	if err == nil || err.Error() != "writing an answer: the pipe is closed" {
		t.Errorf("a broken output: %v", err)
	}
}

// failure is an error that says what broke.
type failure string

func (f failure) Error() string { return string(f) }

// iotestErr is an input that cannot be read.
type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, failure("the disk is gone") }

// failingWriter is an output that cannot be written.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, failure("the pipe is closed") }
