package clientplay

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/proc"
)

// playCommands plays cmds to w at time scale scale.
func playCommands(t *testing.T, w proc.ArgStarter, scale float64, cmds ...string) *Record {
	t.Helper()
	l, err := NewLaunch(w, Options{Relay: []string{"relay"}, Servers: func(name string) (Server, error) {
		return Server{}, fmt.Errorf("no server %s", name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	run, err := l.Play(t.Context(), &clientscenario.Scenario{Name: "s", Commands: cmds}, nil, scale, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.StartErr != nil {
		t.Fatal(run.StartErr)
	}
	return run
}

// TestClientWritesALotAsItEnds: a client that writes many more lines than
// it was asked for just before it ends is read to the end, the lines
// after its answer kept as extra lines, whether it exits at once or first
// closes its stdin, so that the player's next command cannot be written.
// Before, the player stopped reading such a client: one that exited hung
// the grader for good, one that closed its stdin was waited out and
// killed.
func TestClientWritesALotAsItEnds(t *testing.T) {
	const lines = 100
	t.Run("exits", func(t *testing.T) {
		t.Parallel()
		run := playCommands(t, writer{func(_ context.Context, stdin io.Reader, stdout, _ io.Writer) int {
			bufio.NewScanner(stdin).Scan()
			io.WriteString(stdout, strings.Repeat("{}\n", lines))
			return 0
		}}, 0.1, "list_tools")
		if run.Answers[0] == nil || run.Answers[0].Text != "{}" || len(run.Extra) != lines-1 || !run.Exit.OK() || run.Killed != "" {
			t.Errorf("answer %+v, %d extra lines (want %d), exit %s, killed %q", run.Answers[0], len(run.Extra), lines-1, run.Exit, run.Killed)
		}
	})
	t.Run("closes its stdin first", func(t *testing.T) {
		t.Parallel()
		run := playCommands(t, writer{func(_ context.Context, stdin io.Reader, stdout, _ io.Writer) int {
			bufio.NewScanner(stdin).Scan()
			io.WriteString(stdout, "{}\n")
			stdin.(io.Closer).Close()
			io.WriteString(stdout, strings.Repeat("x\n", lines))
			return 0
		}}, 0.1, "list_tools", "list_tools")
		if run.Answers[0] == nil || run.Answers[0].Text != "{}" || run.Answers[1] != nil {
			t.Errorf("answers %+v, want {} and none", run.Answers)
		}
		if len(run.Extra) != lines || run.Extra[0] != "x" || !run.Exit.OK() || run.Killed != "" || !run.Early {
			t.Errorf("%d extra lines (want %d), exit %s, killed %q, early %v", len(run.Extra), lines, run.Exit, run.Killed, run.Early)
		}
	})
}

// TestNoAnswerToACommandNeverGiven: a client that answers its first
// command with three lines and exits has answered that command only: the
// other two lines are extra lines, not answers to the command it was
// never given (whose judging would look for a time it was sent at).
func TestNoAnswerToACommandNeverGiven(t *testing.T) {
	run := playCommands(t, writer{func(_ context.Context, stdin io.Reader, stdout, _ io.Writer) int {
		bufio.NewScanner(stdin).Scan()
		io.WriteString(stdout, "a\nb\nc\n")
		return 0
	}}, 0.1, "list_tools", "list_tools")
	if run.Answers[0] == nil || run.Answers[0].Text != "a" || run.Answers[1] != nil {
		t.Errorf("answers %+v, want a and none", run.Answers)
	}
	if strings.Join(run.Extra, ",") != "b,c" || !run.Early || !run.Exit.OK() {
		t.Errorf("extra lines %q (want b, c), early %v, exit %s", run.Extra, run.Early, run.Exit)
	}
}
