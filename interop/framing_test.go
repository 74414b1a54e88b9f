package interop_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/wire"
)

// deadline bounds each run of a scenario. It is a guard against a server
// that hangs, not a measurement: every server here stops by itself as soon
// as its input ends, and each run takes milliseconds.
const deadline = 10 * time.Second

// outcome is what one server did with one scenario.
type outcome struct {
	answers []string // every line it wrote after the answer to initialize, in order
	refused error    // the error of the first chunk it never read, because it had stopped
	served  error    // what its serve function returned
}

// play opens a session with a fresh server of p, writes chunks to it one
// Write each, and then ends its input, as a client closes a server's stdin.
// When await is an id, play first waits for the answer to that id, or for
// the server to stop, before it ends the input: a client that waits for its
// answers gives a server all the time it needs. play returns once the server
// has stopped.
func play(t *testing.T, p peer, chunks []string, await string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	s := start(t, ctx, p)
	lines := s.lines()
	answer, err := handshake(ctx, s, lines)
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	if err := checkInitializeAnswer(p.name, answer); err != nil {
		t.Fatal(err)
	}
	var o outcome
	for _, c := range chunks {
		if err := s.write(ctx, c); err != nil {
			o.refused = err
			break
		}
	}
	if await != "" {
		for {
			line, err := next(ctx, lines)
			if errors.Is(err, io.EOF) {
				break // the server stopped without answering
			}
			if err != nil {
				t.Fatalf("%s: no answer to id %s and still running: %v (lines so far %q)", p.name, await, err, o.answers)
			}
			o.answers = append(o.answers, line)
			if answers(line, await) {
				break
			}
		}
	}
	s.in.Close()
	for {
		line, err := next(ctx, lines)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s kept running after its input ended: %v (lines so far %q)", p.name, err, o.answers)
		}
		o.answers = append(o.answers, line)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		t.Fatalf("%s closed its output but its serve function did not return: %v", p.name, ctx.Err())
	}
	o.served = s.err
	return o
}

// answers reports whether line is a response to the request whose id is id.
func answers(line, id string) bool {
	m, _ := wire.ParseResponse([]byte(strings.TrimSuffix(line, "\n")))
	return m != nil && wire.SameID(m.ID, json.RawMessage(id))
}

// expect is one server's documented behaviour for one scenario.
type expect struct {
	answers []string // the exact lines it writes, in order
	// mayDrop says the answers may be missing altogether: go-sdk never
	// writes an answer that is still being computed when it reads the end
	// of its input, so it races the end (see TestRequestRunningAtEOF).
	mayDrop bool
	refused bool   // it stops reading, so a later chunk is refused
	served  string // the error its serve function returns; "" for nil
}

// check compares what a server did with what it is documented to do.
func check(t *testing.T, name string, got outcome, want expect) {
	t.Helper()
	if !slices.Equal(got.answers, want.answers) && !(want.mayDrop && len(got.answers) == 0) {
		t.Errorf("%s answered\n%q\nwant\n%q", name, got.answers, want.answers)
	}
	if (got.refused != nil) != want.refused {
		t.Errorf("%s: a write was refused: %v, want refused %v", name, got.refused, want.refused)
	}
	served := ""
	if got.served != nil {
		served = got.served.Error()
	}
	if served != want.served {
		t.Errorf("%s: serve returned %q, want %q", name, served, want.served)
	}
}

// Exact answers the table below expects.
const (
	pingAnswer1  = `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	pingAnswer2  = `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	pingAnswer3  = `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"
	pingAnswer4  = `{"jsonrpc":"2.0","id":4,"result":{}}` + "\n"
	labParseErr  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}` + "\n"
	mcpgoParsErr = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n"
	gosdkSyntax  = "invalid character 'o' in literal null (expecting 'u')"
)

// framingTable is the teaching table of interop/README.md: the same bytes,
// after the same handshake, sent to each server.
var framingTable = []struct {
	name   string
	chunks []string // one Write each
	await  string   // the id whose answer the client waits for before ending the input
	want   map[string]expect
}{
	{
		name:   "whole ping (control)",
		chunks: []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"},
		await:  "1",
		want: map[string]expect{
			"lab":    {answers: []string{pingAnswer1}},
			"go-sdk": {answers: []string{pingAnswer1}},
			"mcp-go": {answers: []string{pingAnswer1}},
		},
	},
	{
		name:   "ping split across two writes",
		chunks: []string{`{"jsonrpc":"2.0","id":2,"meth`, `od":"ping"}` + "\n"},
		await:  "2",
		want: map[string]expect{
			"lab":    {answers: []string{pingAnswer2}},
			"go-sdk": {answers: []string{pingAnswer2}},
			"mcp-go": {answers: []string{pingAnswer2}},
		},
	},
	{
		name:   "bad line, then ping",
		chunks: []string{"not json at all\n", `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"},
		await:  "3",
		want: map[string]expect{
			"lab":    {answers: []string{labParseErr, pingAnswer3}},
			"go-sdk": {refused: true, served: gosdkSyntax},
			"mcp-go": {answers: []string{mcpgoParsErr, pingAnswer3}},
		},
	},
	{
		name:   "last line without newline, then end of input",
		chunks: []string{`{"jsonrpc":"2.0","id":4,"method":"ping"}`},
		want: map[string]expect{
			"lab":    {answers: []string{pingAnswer4}},
			"go-sdk": {answers: []string{pingAnswer4}, mayDrop: true},
			"mcp-go": {},
		},
	},
}

// TestFraming sends each framing scenario to the lab's reference server and
// to both SDK servers, and checks that each behaves as interop/README.md
// says.
func TestFraming(t *testing.T) {
	for _, row := range framingTable {
		t.Run(row.name, func(t *testing.T) {
			for _, p := range peers() {
				check(t, p.name, play(t, p, row.chunks, row.await), row.want[p.name])
			}
		})
	}
}

// TestGoSDKParseErrorIsASyntaxError pins the kind of error go-sdk's Run
// returns when a line is not JSON: the encoding/json error itself, with no
// JSON-RPC answer sent for it.
func TestGoSDKParseErrorIsASyntaxError(t *testing.T) {
	o := play(t, peerNamed(t, "go-sdk"), []string{"not json at all\n"}, "")
	var syntax *json.SyntaxError
	if !errors.As(o.served, &syntax) {
		t.Fatalf("go-sdk's Run returned %v (%T), want a *json.SyntaxError", o.served, o.served)
	}
	if len(o.answers) != 0 {
		t.Errorf("go-sdk answered %q to a bad line, want nothing", o.answers)
	}
}

// TestRequestRunningAtEOF ends the input while a request is still being
// handled, and checks who still answers it. The lab is asked to wait 100 ms;
// the SDK servers are asked to call the hold tool, which returns only once
// the server has seen the end of its input and cancelled the call.
func TestRequestRunningAtEOF(t *testing.T) {
	hold := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hold","arguments":{}}}` + "\n"
	rows := map[string]struct {
		line string
		want expect
	}{
		"lab": {`{"jsonrpc":"2.0","id":5,"method":"wait","params":{"ms":100}}` + "\n",
			expect{answers: []string{`{"jsonrpc":"2.0","id":5,"result":{"waited":100}}` + "\n"}}},
		"go-sdk": {hold, expect{}},
		"mcp-go": {hold, expect{answers: []string{`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"held"}]}}` + "\n"}}},
	}
	for _, p := range peers() {
		row := rows[p.name]
		check(t, p.name, play(t, p, []string{row.line}, ""), row.want)
	}
}

// TestGoSDKAnswersUnterminatedLineBeforeEOF shows why go-sdk answers a last
// line that has no newline: its reader is a streaming JSON decoder, not a
// line reader, and an object ends at its closing brace. The client here
// waits for the answer before it ends the input, and gets it. A line reader
// (the lab's, mcp-go's) cannot know the line is over until a newline or the
// end of the input comes.
func TestGoSDKAnswersUnterminatedLineBeforeEOF(t *testing.T) {
	o := play(t, peerNamed(t, "go-sdk"), []string{`{"jsonrpc":"2.0","id":4,"method":"ping"}`}, "4")
	check(t, "go-sdk", o, expect{answers: []string{pingAnswer4}})
}
