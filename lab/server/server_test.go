package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/wire"
)

// serve runs the reference server over the whole input and returns what it
// wrote to stdout and to stderr.
func serve(t *testing.T, input string) (stdout, stderr string) {
	t.Helper()
	var out, logs bytes.Buffer
	srv := &Server{Handler: Reader{}, Log: &logs}
	if err := srv.Serve(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return out.String(), logs.String()
}

// TestExactBytes pins the reference server's answers byte for byte: the
// lesson and its teacher's key quote them.
func TestExactBytes(t *testing.T) {
	tests := []struct{ in, out string }{
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n",
			`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"},
		{"not json at all\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}` + "\n"},
		{`{"jsonrpc":"2.0","id":5,"method":5}` + "\n",
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string, not the number 5"}}` + "\n"},
		{`[1,2]` + "\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a request must be a JSON object, not an array"}}` + "\n"},
		{`{"jsonrpc":"2.0","id":"w","method":"wait","params":{"ms":0}}` + "\n",
			`{"jsonrpc":"2.0","id":"w","result":{"waited":0}}` + "\n"},
		{`{"jsonrpc":"2.0","id":4,"method":"nope"}` + "\n",
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: \"nope\" (this server knows ping and wait)"}}` + "\n"},
		{`{"jsonrpc":"2.0","id":8,"method":"wait","params":{"ms":60001}}` + "\n",
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Invalid params: \"ms\" must be at most 60000, got 60001"}}` + "\n"},
		{`{"jsonrpc":"2.0","method":"notifications/x"}` + "\n", ""},
	}
	for _, tt := range tests {
		if got, _ := serve(t, tt.in); got != tt.out {
			t.Errorf("input %q:\n got %q\nwant %q", tt.in, got, tt.out)
		}
	}
}

func TestLogsGoToStderr(t *testing.T) {
	out, logs := serve(t, "not json\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","method":"n"}`+"\n")
	lines := strings.Split(strings.TrimSuffix(logs, "\n"), "\n")
	if lines[0] != "log: ready" {
		t.Errorf("first log line %q, want %q", lines[0], "log: ready")
	}
	if len(lines) != 5 { // ready, three messages, input closed
		t.Errorf("want one log line per message plus ready and the end, got %q", lines)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if m, why := wire.ParseResponse([]byte(l)); m == nil {
			t.Errorf("stdout line %q is not a response: %s", l, why)
		}
	}
}

var answerForm = regexp.MustCompile(`^(result (.+)|error (-?\d+)), id (.+)$`)

// TestOddInputs runs every row of lessons/01-reading-messages/odd-inputs.md
// against the reference server: the table students read is the truth.
func TestOddInputs(t *testing.T) {
	for _, row := range testkit.ReadOddInputs(t, "../../lessons/01-reading-messages/odd-inputs.md") {
		out, _ := serve(t, row.Input)
		if row.Answer == "nothing" {
			if out != "" {
				t.Errorf("row %d %q: want nothing, got %q", row.N, row.Input, out)
			}
			continue
		}
		m := answerForm.FindStringSubmatch(row.Answer)
		if m == nil {
			t.Fatalf("row %d: answer %q is not in a form the test knows", row.N, row.Answer)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 1 || lines[0] == "" {
			t.Errorf("row %d %q: want one answer, got %q", row.N, row.Input, out)
			continue
		}
		msg, why := wire.ParseResponse([]byte(lines[0]))
		if msg == nil {
			t.Errorf("row %d: answer %q is not a response: %s", row.N, lines[0], why)
			continue
		}
		if !wire.SameID(msg.ID, json.RawMessage(m[4])) || string(msg.ID) != m[4] {
			t.Errorf("row %d %q: id %s, want %s", row.N, row.Input, msg.ID, m[4])
		}
		if m[2] != "" {
			if msg.Result == nil || string(msg.Result) != m[2] {
				t.Errorf("row %d %q: got %s, want result %s", row.N, row.Input, lines[0], m[2])
			}
		} else if code, _ := strconv.Atoi(m[3]); msg.Error == nil || msg.Error.Code != code {
			t.Errorf("row %d %q: got %s, want error %d", row.N, row.Input, lines[0], code)
		}
	}
}

// pipeServer starts the reference server on in-memory pipes.
func pipeServer(t *testing.T, ctx context.Context) (in io.WriteCloser, out *bufio.Reader, done <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := (&Server{Handler: Reader{}}).Serve(ctx, inR, outW)
		outW.Close()
		errc <- err
	}()
	return inW, bufio.NewReader(outR), errc
}

// TestSlowRequestDoesNotBlock uses fake time: a 60 s wait sent first must
// not delay a ping sent after it, and on EOF the server still answers the
// wait before it returns.
func TestSlowRequestDoesNotBlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out, done := pipeServer(t, context.Background())
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":60000}}`+"\n")
		io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
		line, err := out.ReadString('\n')
		if err != nil || line != `{"jsonrpc":"2.0","id":2,"result":{}}`+"\n" {
			t.Fatalf("first answer %q, %v; want the ping's", line, err)
		}
		in.Close()
		line, _ = out.ReadString('\n')
		if line != `{"jsonrpc":"2.0","id":1,"result":{"waited":60000}}`+"\n" {
			t.Fatalf("second answer %q; want the wait's", line)
		}
		if err := <-done; err != nil {
			t.Fatalf("Serve: %v", err)
		}
	})
}

// TestAnswersNeverInterleave sends many requests at once and checks that
// every stdout line is one whole response.
func TestAnswersNeverInterleave(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"wait","params":{"ms":0}}` + "\n")
	}
	out, _ := serve(t, b.String())
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2000 {
		t.Fatalf("got %d answers, want 2000", len(lines))
	}
	var ids []int
	for _, l := range lines {
		msg, why := wire.ParseResponse([]byte(l))
		if msg == nil {
			t.Fatalf("line %q: %s", l, why)
		}
		n, _ := strconv.Atoi(string(msg.ID))
		ids = append(ids, n)
	}
	sort.Ints(ids)
	for i, n := range ids {
		if n != i {
			t.Fatalf("ids are not each answered once: %d at %d", n, i)
		}
	}
}

// TestCancelStopsWaits checks that a cancelled context ends Serve without
// waiting out a long wait, and that the wait still gets an answer.
func TestCancelStopsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		in, out, done := pipeServer(t, ctx)
		defer in.Close()
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":60000}}`+"\n")
		synctest.Wait()
		cancel()
		line, _ := out.ReadString('\n')
		if !strings.Contains(line, `"code":-32603`) || !strings.Contains(line, `"id":1`) {
			t.Fatalf("answer %q; want -32603 for id 1", line)
		}
		if err := <-done; err != context.Canceled {
			t.Fatalf("Serve returned %v, want context.Canceled", err)
		}
	})
}

// TestLineTooLong checks the one error for an over-long line, and that the
// server goes on with the next line.
func TestLineTooLong(t *testing.T) {
	var out bytes.Buffer
	srv := &Server{Handler: Reader{}, MaxLine: 64}
	in := strings.Repeat("x", 1000) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	if err := srv.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: line of 1000 bytes is longer than the 64-byte limit; it was dropped"}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	if out.String() != want {
		t.Errorf("got %q\nwant %q", out.String(), want)
	}
}

// TestHandlerPanic shows that a handler that panics costs one -32603, not
// the server.
func TestHandlerPanic(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	srv := &Server{Handler: HandlerFunc(func(context.Context, *wire.Message) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		panic("boom")
	})}
	in := `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n"
	if err := srv.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: the handler failed"}}` + "\n"
	if out.String() != want {
		t.Errorf("got %q want %q", out.String(), want)
	}
}

// TestQuickAnswersKeepLineOrder pins the order of lesson 1's reference
// server: everything but a valid wait is answered inline, so those answers
// leave in the order their lines came, and the wait's answer comes last. Fake
// time makes the wait's timer fire only once nothing else can run.
func TestQuickAnswersKeepLineOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"wait","params":{"ms":50}}`,
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
			`not json at all`,
			`{"jsonrpc":"2.0","id":5,"method":5}`,
			`{"jsonrpc":"2.0","method":"notifications/x"}`,
			`{"jsonrpc":"2.0","id":4,"method":"nope"}`,
			`{"jsonrpc":"2.0","id":8,"method":"wait","params":{"ms":-5}}`,
			`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
		}, "\n") + "\n"
		out, _ := serve(t, in)
		var ids []string
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			msg, why := wire.ParseResponse([]byte(l))
			if msg == nil {
				t.Fatalf("line %q: %s", l, why)
			}
			ids = append(ids, string(msg.ID))
		}
		if got, want := strings.Join(ids, " "), "2 null 5 4 8 9 1"; got != want {
			t.Errorf("answers came for ids %s, want %s (line order, the wait last)", got, want)
		}
	})
}

// TestInlineIsOptIn checks that a Handler that is not an Inliner has every
// request run on its own: a request that blocks until a later one has been
// handled still lets that later one through.
func TestInlineIsOptIn(t *testing.T) {
	release := make(chan struct{})
	srv := &Server{Handler: HandlerFunc(func(ctx context.Context, req *wire.Message) (any, error) {
		if req.Method == "first" {
			<-release
			return "first", nil
		}
		close(release)
		return "second", nil
	})}
	var out bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"first"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"second"}` + "\n"
	if err := srv.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	// That it returned at all is the point: run in line, the first
	// request would wait for the second for ever. Once the second is
	// handled, the two answers race to the output, so either order is
	// right.
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	sort.Strings(got)
	want := []string{`{"jsonrpc":"2.0","id":1,"result":"first"}`, `{"jsonrpc":"2.0","id":2,"result":"second"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q\nwant %q, in either order", out.String(), want)
	}
}
