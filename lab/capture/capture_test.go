package capture_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/wire"
)

// echoServer answers each request with {} (or -32700 without an id for a
// line that is not JSON), logs one line on stderr per line, and ignores
// notifications. With silent it never answers the request with id 2.
func echoServer(silent bool) proc.InProcess {
	return func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
		io.WriteString(stderr, "echo: ready\n")
		f := wire.NewFramer(stdin)
		for {
			line, err := f.Next()
			if err != nil {
				return 0
			}
			io.WriteString(stderr, "echo: got a line\n")
			msg, problem := wire.ParseRequest(line)
			switch {
			case problem != nil:
				b, _ := wire.AppendErrorLine(nil, nil, problem.Err)
				stdout.Write(b)
			case msg.Kind == wire.KindNotification:
			case silent && string(msg.ID) == "2":
			default:
				stdout.Write(wire.AppendResultLine(nil, msg.ID, []byte(`{}`)))
			}
		}
	}
}

// fakeClock advances one millisecond each time it is read.
func fakeClock() func() time.Time {
	t := time.Date(2026, 10, 15, 9, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Millisecond); return t }
}

func TestRecordsBothWaysInCausalOrder(t *testing.T) {
	input := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n\nnot json\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"b\"}\n"
	s, err := capture.Run(context.Background(), echoServer(false), []byte(input), capture.Options{Now: fakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	var exchange []string
	stderr := 0
	for _, r := range s.Records {
		if r.From == capture.Stderr {
			stderr++
			continue
		}
		exchange = append(exchange, capture.Word(r.From)+" "+r.Line())
	}
	want := []string{
		`client {"jsonrpc":"2.0","id":1,"method":"a"}`,
		`server {"jsonrpc":"2.0","id":1,"result":{}}`,
		`client not json`,
		`server {"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`,
		`client {"jsonrpc":"2.0","method":"n"}`,
		`client {"jsonrpc":"2.0","id":"x","method":"b"}`,
		`server {"jsonrpc":"2.0","id":"x","result":{}}`,
		`lab stdin closed`,
		`lab server exited with status 0`,
	}
	if strings.Join(exchange, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(exchange, "\n"), strings.Join(want, "\n"))
	}
	if stderr != 5 {
		t.Errorf("got %d stderr records, want 5", stderr)
	}
	if len(s.Missing) != 0 || !s.Exit.OK() {
		t.Errorf("missing %v, exit %v", s.Missing, s.Exit)
	}
	for i, r := range s.Records {
		if r.Seq != i+1 || (i > 0 && r.Ms <= s.Records[i-1].Ms) {
			t.Errorf("record %d: seq %d at %v ms, after %v ms", i, r.Seq, r.Ms, s.Records[max(i-1, 0)].Ms)
		}
	}

	var jsonl, md bytes.Buffer
	if err := s.WriteJSONL(&jsonl); err != nil {
		t.Fatal(err)
	}
	back, err := capture.ReadJSONL(jsonl.Bytes())
	if err != nil || len(back) != len(s.Records) {
		t.Fatalf("reading the session back: %v (%d records)", err, len(back))
	}
	if !capture.LooksLikeSession(jsonl.Bytes()) || capture.LooksLikeSession([]byte(input)) {
		t.Error("LooksLikeSession tells sessions and wire files apart wrongly")
	}
	if err := s.WriteMarkdown(&md, "Echo"); err != nil {
		t.Fatal(err)
	}
	for _, piece := range []string{"# Echo\n", "**client → server** at ", "```json\n{\n  \"jsonrpc\": \"2.0\",", "not json\n```\n(not JSON)", "## What the server logged on stderr", "echo: ready"} {
		if !strings.Contains(md.String(), piece) {
			t.Errorf("the Markdown lacks %q:\n%s", piece, md.String())
		}
	}
}

func TestMissingAnswerIsRecordedNotHung(t *testing.T) {
	input := "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"a\"}\n"
	s, err := capture.Run(context.Background(), echoServer(true), []byte(input), capture.Options{Wait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Missing) != 1 || !strings.Contains(s.Missing[0], "no answer to id 2") {
		t.Errorf("missing: %v", s.Missing)
	}
	var last string
	for _, r := range s.Records {
		if r.From == capture.Server {
			last = r.Line()
		}
	}
	if last != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("the session went on after the missing answer? last answer %s", last)
	}
}

// A server that never reads its input does not hang the recorder: the
// write gives up, the server is killed, and the session says so.
func TestServerThatDoesNotReadIsKilled(t *testing.T) {
	deaf := proc.InProcess(func(ctx context.Context, _ io.Reader, _, _ io.Writer) int {
		<-ctx.Done()
		return 0
	})
	s, err := capture.Run(context.Background(), deaf, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n"), capture.Options{Wait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Missing) != 1 || !strings.Contains(s.Missing[0], "read none of it") || s.Exit.OK() {
		t.Errorf("missing %v, exit %v", s.Missing, s.Exit)
	}
}
