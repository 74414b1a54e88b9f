package stdioprobe_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
)

// deafScenario sends two requests (41 and 41 bytes), awaits the second for
// ten minutes and closes stdin.
const deafScenario = `-- steps --
at 0ms send one
at 10ms send two
await 2 within 10m
at 20ms close
-- one --
{"jsonrpc":"2.0","id":1,"method":"ping"}
-- two --
{"jsonrpc":"2.0","id":2,"method":"ping"}
`

// A server that reads none of its input cannot answer it or see its stdin
// close: once it has had the read deadline (2 s, here scaled to 0.5 s) the
// await ends and the server is stopped at close, long before the await's
// and the exit's ten minutes (scaled to 2.5).
func TestServerThatReadsNothingIsNotWaitedFor(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("deaf", []byte(deafScenario))
	if err != nil {
		t.Fatal(err)
	}
	deaf := proc.Command{Path: "sh", Args: []string{"-c", "echo ready >&2; exec sleep 600"}}
	started := time.Now()
	run, err := stdioprobe.Play(context.Background(), sc, deaf, stdioprobe.Options{TimeScale: 0.25, ExitWithin: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(started); took > 2*time.Minute {
		t.Errorf("Play took %v: it waited for deadlines a server that reads nothing cannot meet", took)
	}
	const why = "the server read none of the 82 bytes sent to its stdin within 500ms of the first chunk"
	if !run.Killed || run.KillReason != why+", so it could not see its stdin close" {
		t.Errorf("killed %v, reason %q", run.Killed, run.KillReason)
	}
	if strings.Join(run.AwaitMissed, " ") != "2" {
		t.Errorf("awaits missed %q, want [2]", run.AwaitMissed)
	}
	if !run.Unread {
		t.Error("Unread is not set for a ready server that read none of its stdin")
	}
	var notes []string
	for _, ev := range run.Events {
		if ev.Kind == event.Note {
			notes = append(notes, ev.Text)
			if !ev.Deadline {
				t.Errorf("the note %q is not marked as a wait that ran out", ev.Text)
			}
		}
	}
	want := []string{
		"no answer to id 2: " + why + ", so it cannot have answered",
		why + ", so it could not see its stdin close; the client stopped the server",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}

// A server that reads its input is given the whole exit deadline after
// stdin closes, however long the read deadline: this one reads to the end,
// then never exits, and is stopped for that.
func TestServerThatReadsIsGivenTheExitDeadline(t *testing.T) {
	t.Parallel()
	// Notifications only: no await before the close.
	sc, err := scenario.Parse("reads", []byte("-- steps --\nat 0ms send a\nat 10ms send a\nat 20ms close\n-- a --\n{\"jsonrpc\":\"2.0\",\"method\":\"note\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	reads := proc.Command{Path: "sh", Args: []string{"-c", "echo ready >&2; while IFS= read -r l; do :; done; exec sleep 600"}}
	// The read deadline is 20 s; the exit deadline 1 s.
	run, err := stdioprobe.Play(context.Background(), sc, reads, stdioprobe.Options{TimeScale: 10, ExitWithin: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !run.Killed || run.KillReason != "the server was still running 1s after its stdin closed" || run.ExitedAfterClose {
		t.Errorf("killed %v (%q), exited after close %v", run.Killed, run.KillReason, run.ExitedAfterClose)
	}
	if run.Unread {
		t.Error("Unread is set for a server that read its stdin")
	}
}

// A server that shows no sign of being ready may still be starting when its
// first chunk is written, so reading nothing is not held against it: it is
// given the whole exit deadline, as before.
func TestServerThatSaysNothingIsGivenTheExitDeadline(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("silent", []byte("-- steps --\nat 0ms send a\nat 10ms send a\nat 20ms close\n-- a --\n{\"jsonrpc\":\"2.0\",\"method\":\"note\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	deaf := proc.Command{Path: "sh", Args: []string{"-c", "exec sleep 600"}}
	// The read deadline is 500ms; the exit deadline 1 s.
	run, err := stdioprobe.Play(context.Background(), sc, deaf, stdioprobe.Options{Ready: stdioprobe.Readiness{None: true}, TimeScale: 0.25, ExitWithin: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !run.Killed || run.KillReason != "the server was still running 1s after its stdin closed" {
		t.Errorf("killed %v (%q)", run.Killed, run.KillReason)
	}
	if run.Unread {
		t.Error("Unread is set for a server that never said it was ready: its reading time may have been its start")
	}
}

// Without ExitWithin, the exit deadline after stdin closes is sized to what
// the server still has to do: 2 s when every request sent has had its
// answer (it has only to read the end of its input and exit), 5 s when
// answers are still due (scaled, here by 0.5). This server reads its input
// to the end, answers nothing and never exits.
func TestExitDeadlineFitsWhatIsDue(t *testing.T) {
	t.Parallel()
	reads := proc.Command{Path: "sh", Args: []string{"-c", "while IFS= read -r l; do :; done; exec sleep 600"}}
	for name, c := range map[string]struct{ steps, want string }{
		"nothing due": {"at 0ms send note\nat 10ms close\n", "the server was still running 1s after its stdin closed"},
		"an answer due": {"at 0ms send note\nat 0ms send ping\nat 10ms close early\n",
			"the server was still running 2.5s after its stdin closed"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenario.Parse(name, []byte("-- steps --\n"+c.steps+
				"-- note --\n{\"jsonrpc\":\"2.0\",\"method\":\"note\"}\n-- ping --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"))
			if err != nil {
				t.Fatal(err)
			}
			run, err := stdioprobe.Play(context.Background(), sc, reads, stdioprobe.Options{Ready: stdioprobe.Readiness{None: true}, TimeScale: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			if !run.Killed || run.KillReason != c.want {
				t.Errorf("killed %v (%q), want %q", run.Killed, run.KillReason, c.want)
			}
		})
	}
}
