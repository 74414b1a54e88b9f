package capture_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/wire"
)

// TestServerThatAnswersUnasked: a server that writes many answers nobody
// asked for before it reads a line is read on while the recorder writes
// lines that need no answer, so its input still goes in and its answer to
// the request is awaited. Before, the recorder stopped reading after 64
// unasked answers, an in-process server then waited on its stdout, and the
// notification written to it timed out.
func TestServerThatAnswersUnasked(t *testing.T) {
	const unasked = 300
	srv := proc.InProcess(func(ctx context.Context, stdin io.Reader, stdout, _ io.Writer) int {
		for i := range unasked {
			fmt.Fprintf(stdout, "{\"jsonrpc\":\"2.0\",\"id\":\"u%d\",\"result\":{}}\n", i)
		}
		f := wire.NewFramer(stdin)
		for {
			line, err := f.Next()
			if err != nil {
				return 0
			}
			if msg, problem := wire.ParseRequest(line); problem == nil && msg.Kind == wire.KindRequest {
				stdout.Write(wire.AppendResultLine(nil, msg.ID, []byte(`{}`)))
			}
		}
	})
	input := "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"a\"}\n"
	s, err := capture.Run(context.Background(), srv, []byte(input), capture.Options{Now: fakeClock(), Wait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Missing) > 0 || !s.Exit.OK() {
		t.Errorf("missing %q, exit %s", s.Missing, s.Exit)
	}
	answers := 0
	for _, r := range s.Records {
		if r.From == capture.Server {
			answers++
		}
	}
	if answers != unasked+1 {
		t.Errorf("%d answers recorded, want %d", answers, unasked+1)
	}
}
