package stdioprobe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/wire"
)

// quiet is a server that logs nothing on stderr and answers every request
// with an empty result.
func quiet(_ context.Context, stdin io.Reader, stdout, _ io.Writer) int {
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		if msg, problem := wire.ParseRequest(sc.Bytes()); problem == nil && msg.Kind == wire.KindRequest {
			fmt.Fprintf(stdout, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n", msg.ID)
		}
	}
	return 0
}

// TestReadiness plays one ping against a server that prints nothing on
// stderr: a probe or no wait at all makes it ready at once, the probe's
// answer stays out of the run's answers, and waiting for a stderr line
// costs the whole ready deadline. Only the case that must run out of time
// gets a short deadline: the probe's answer ends its wait as it comes, so
// a generous one costs nothing and a loaded machine cannot flip it (at
// 50 ms, a -race run beside CI's load once missed the probe's answer).
func TestReadiness(t *testing.T) {
	sc, err := scenario.Parse("ping", []byte("-- steps --\nat 0ms send ping\n-- ping --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		ready     Readiness
		within    time.Duration
		wantReady bool
		note      string
	}{
		"probe":  {Readiness{Probe: []byte(`{"jsonrpc":"2.0","id":"lab-ready","method":"ping"}` + "\n")}, 30 * time.Second, true, `the server answered the readiness probe: {"jsonrpc":"2.0","id":"lab-ready","result":{}}`},
		"none":   {Readiness{None: true}, 30 * time.Second, true, ""},
		"stderr": {Readiness{Stderr: "listening"}, 50 * time.Millisecond, false, `no stderr line containing "listening" within`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run, err := Play(context.Background(), sc, proc.InProcess(quiet), Options{Ready: tc.ready, ReadyWithin: tc.within})
			if err != nil {
				t.Fatal(err)
			}
			if run.Ready != tc.wantReady {
				t.Errorf("ready %v, want %v", run.Ready, tc.wantReady)
			}
			if len(run.Answers) != 1 || !strings.Contains(run.Answers[0].Line, `"id":1`) {
				t.Errorf("answers %+v, want only the ping's", run.Answers)
			}
			var notes []string
			for _, ev := range run.Events {
				if ev.Kind == event.Note {
					notes = append(notes, ev.Text)
				}
			}
			if tc.note != "" && !strings.Contains(strings.Join(notes, "\n"), tc.note) {
				t.Errorf("notes %q, want one with %q", notes, tc.note)
			}
		})
	}
}

// TestStderrReady matches the pattern in any case, and "ready" by default.
func TestStderrReady(t *testing.T) {
	for _, tc := range []struct {
		r    Readiness
		line string
		want bool
	}{
		{Readiness{}, "log: READY", true},
		{Readiness{}, "log: starting", false},
		{Readiness{Stderr: "Listening"}, "now listening on stdin", true},
		{Readiness{Stderr: "Listening"}, "ready", false},
		{Readiness{None: true}, "ready", false},
		{Readiness{Probe: []byte("{}\n")}, "ready", false},
	} {
		if got := tc.r.stderrReady(tc.line); got != tc.want {
			t.Errorf("%+v on %q: %v, want %v", tc.r, tc.line, got, tc.want)
		}
	}
}
