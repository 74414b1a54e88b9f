package clientplay

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
)

// TestExitWatchWords holds the exit deadline and the words of a kill at
// time scale 1: with no output read after the close, the words a client
// that hangs has always been given; with output, the deadline counts from
// the last of it, up to ExitDeadlineMax.
func TestExitWatchWords(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name      string
		last      time.Duration // -1: no output read
		due       time.Duration
		why       string
		afterShut time.Duration
	}{
		{"no output", -1, 25 * s, "the client was still running 15s after its stdin closed, and was killed", 15 * s},
		{"output before the close", 4 * s, 25 * s, "the client was still running 15s after its stdin closed, and was killed", 15 * s},
		{"output after the close", 20 * s, 35 * s, "the client was still running 15s after the grader read the last of its output, which came after its stdin closed, and was killed", 25 * s},
		{"output to the cap", 58 * s, 70 * s, "the client was still running, and still writing output, 1m0s after its stdin closed, and was killed: once its stdin closes, a client has 15s from its last output to exit, and 1m0s at most", 60 * s},
	} {
		o := newOutputClock(func() time.Duration { return 0 })
		o.last.Store(int64(tc.last))
		w := exitWatch{out: o, closed: 10 * s, deadline: ExitDeadline, most: ExitDeadlineMax}
		if got := w.left(10 * s); got != tc.due-10*s {
			t.Errorf("%s: %s left at the close, want %s", tc.name, got, tc.due-10*s)
		}
		why, after := w.verdict()
		if why != tc.why || after != tc.afterShut {
			t.Errorf("%s: verdict %q, %s after the close\nwant %q, %s", tc.name, why, after, tc.why, tc.afterShut)
		}
	}
}

// writer is a client played in the test's own process: it answers each
// command with {} and, once its stdin ends, does what afterClose does.
type writer struct {
	proc.InProcess
}

// WithArgs ignores the --config a launch adds: the client needs none.
func (w writer) WithArgs(...string) proc.Starter { return w }

func newWriter(afterClose func(ctx context.Context, stdout, stderr io.Writer) int) writer {
	return writer{func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			if _, err := io.WriteString(stdout, "{}\n"); err != nil {
				return 1
			}
		}
		return afterClose(ctx, stdout, stderr)
	}}
}

// playWriter plays one command to w at time scale scale.
func playWriter(t *testing.T, w proc.ArgStarter, scale float64) *Record {
	t.Helper()
	return playCommands(t, w, scale, "list_tools")
}

// wantKilled checks that the player killed the client with the words
// want, no sooner than after past its stdin's close (to the millisecond of
// the kill's note), and marked the note as a wait that ran out.
func wantKilled(t *testing.T, run *Record, want string, after time.Duration) {
	t.Helper()
	if run.Killed != want || run.Exit.Signal != "killed" {
		t.Fatalf("killed %q (%s)\nwant %q", run.Killed, run.Exit, want)
	}
	for _, ev := range run.Events {
		if ev.Kind != event.Note || ev.Text != run.Killed {
			continue
		}
		if ev.At < (run.ClosedAt + after).Truncate(time.Millisecond) {
			t.Errorf("killed %s after its stdin closed, want %s", ev.At-run.ClosedAt, after)
		}
		if !ev.Deadline {
			t.Errorf("the note of the kill is not marked as a wait that ran out")
		}
		return
	}
	t.Errorf("no note of the kill %q in %+v", run.Killed, run.Events)
}

// paced waits a tick before a writer's next line, and reports false when
// its context ended (it was killed).
func paced(ctx context.Context, tick time.Duration) bool {
	select {
	case <-time.After(tick):
		return true
	case <-ctx.Done():
		return false
	}
}

// TestExitDeadlineFollowsOutput: once its stdin closed, a client whose
// output the player keeps reading is not killed at the exit deadline (a
// flood drained slowly is not a hang); one that writes for ever is killed
// at ExitDeadlineMax; one that writes and then hangs is killed the exit
// deadline after its last output; one that hangs silent gets the words it
// always got. Each writer paces its lines at a twentieth of the deadline,
// and its pipe's writes return only once the player read them.
func TestExitDeadlineFollowsOutput(t *testing.T) {
	const scale = 0.1
	deadline, most := Scaled(ExitDeadline, scale), Scaled(ExitDeadlineMax, scale)
	tick := deadline / 20
	t.Run("writes past the deadline", func(t *testing.T) {
		t.Parallel()
		var wrote atomic.Int64
		run := playWriter(t, newWriter(func(ctx context.Context, stdout, _ io.Writer) int {
			// It writes for twice the deadline after it saw its stdin end.
			end := time.Now().Add(2 * deadline)
			for time.Now().Before(end) {
				if _, err := io.WriteString(stdout, "more\n"); err != nil {
					return 1
				}
				wrote.Add(1)
				if !paced(ctx, tick) {
					return 1
				}
			}
			return 0
		}), scale)
		if run.Killed != "" || !run.Exited || !run.Exit.OK() {
			t.Fatalf("killed %q, exited %v (%s); want an exit with status 0", run.Killed, run.Exited, run.Exit)
		}
		if got := run.ExitAt - run.ClosedAt; got <= deadline {
			t.Errorf("it exited %s after its stdin closed, want more than the deadline %s", got, deadline)
		}
		if n := wrote.Load(); int64(len(run.Extra)) != n || n < 20 || run.Extra[0] != "more" {
			t.Errorf("%d extra lines kept, first %q; want the %d it wrote (at least 20), each \"more\"", len(run.Extra), run.Extra[:min(1, len(run.Extra))], n)
		}
	})
	t.Run("writes for ever", func(t *testing.T) {
		t.Parallel()
		run := playWriter(t, newWriter(func(ctx context.Context, _, stderr io.Writer) int {
			for {
				if _, err := io.WriteString(stderr, "still here\n"); err != nil || !paced(ctx, tick) {
					return 1
				}
			}
		}), scale)
		wantKilled(t, run, "the client was still running, and still writing output, 6s after its stdin closed, and was killed: once its stdin closes, a client has 1.5s from its last output to exit, and 6s at most", most)
		if len(run.Stderr) < 20 || run.Stderr[0] != "still here" {
			t.Errorf("stderr %d lines, want at least 20 of \"still here\"", len(run.Stderr))
		}
	})
	t.Run("writes then hangs", func(t *testing.T) {
		t.Parallel()
		run := playWriter(t, newWriter(func(ctx context.Context, stdout, _ io.Writer) int {
			io.WriteString(stdout, strings.Repeat("x", 1<<20)+"\nbye\n")
			<-ctx.Done()
			return 1
		}), scale)
		wantKilled(t, run, "the client was still running 1.5s after the grader read the last of its output, which came after its stdin closed, and was killed", deadline)
		if len(run.Extra) != 2 || run.Extra[1] != "bye" {
			t.Errorf("extra lines %d, want the 2 it wrote", len(run.Extra))
		}
	})
	t.Run("hangs silent", func(t *testing.T) {
		t.Parallel()
		run := playWriter(t, newWriter(func(ctx context.Context, _, _ io.Writer) int {
			<-ctx.Done()
			return 1
		}), scale)
		// The words a client that hangs always got, at this time scale.
		wantKilled(t, run, "the client was still running 2s after its stdin closed, and was killed", deadline)
	})
}
