package stdioprobe

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/scenario"
)

// TestReadinessShown reads the sign of readiness from a whole run: the
// probe's answer, a matching stderr line, or nothing for None; and a
// server that ends at once, having shown nothing, did not show it.
func TestReadinessShown(t *testing.T) {
	sc, err := scenario.Parse("ping", []byte("-- steps --\nat 0ms send ping\n-- ping --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	probe := Readiness{Probe: []byte(`{"jsonrpc":"2.0","id":"lab-ready","method":"ping"}` + "\n")}
	logsReady := func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
		fmt.Fprintln(stderr, "log: Ready")
		return quiet(ctx, stdin, stdout, stderr)
	}
	endsAtOnce := func(_ context.Context, _ io.Reader, _, stderr io.Writer) int {
		fmt.Fprintln(stderr, "cannot open config.json")
		return 3
	}
	for name, tc := range map[string]struct {
		ready Readiness
		serve proc.ServeFunc
		want  bool
	}{
		"probe answered":   {probe, quiet, true},
		"probe unanswered": {probe, endsAtOnce, false},
		"stderr line":      {Readiness{}, logsReady, true},
		"no stderr line":   {Readiness{}, endsAtOnce, false},
		"none":             {Readiness{None: true}, endsAtOnce, true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run, err := Play(context.Background(), sc, proc.InProcess(tc.serve), Options{Ready: tc.ready, ReadyWithin: 5e9})
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.ready.Shown(run); got != tc.want {
				t.Errorf("Shown = %v, want %v (events %+v)", got, tc.want, run.Events)
			}
		})
	}
}

// TestReadinessDescribe names what the client waits for.
func TestReadinessDescribe(t *testing.T) {
	for r, want := range map[*Readiness]string{
		{}:                             `a stderr line containing "ready"`,
		{Stderr: "listening"}:          `a stderr line containing "listening"`,
		{Probe: []byte("{\"x\":1}\n")}: `an answer on stdout to the readiness probe {"x":1}`,
		{None: true}:                   "nothing (the scenario starts at once)",
	} {
		if got := r.Describe(); got != want {
			t.Errorf("Describe() = %q, want %q", got, want)
		}
	}
}
