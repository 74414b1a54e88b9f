package stdioprobe_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/server"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lessons"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func reference() proc.InProcess {
	return func(ctx context.Context, in io.Reader, out, errw io.Writer) int {
		srv := &server.Server{Handler: server.Reader{}, Log: errw}
		if err := srv.Serve(ctx, in, out); err != nil {
			return 1
		}
		return 0
	}
}

func lessonScenario(t *testing.T) *scenario.Scenario {
	t.Helper()
	l, err := lessons.Get(1)
	if err != nil {
		t.Fatal(err)
	}
	data, err := l.Read("scenario.txtar")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse("scenario", data)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// normalise renders a transcript canonically. Fake time makes instants
// exact, and events of the same instant are listed kind by kind (close,
// chunks, stderr in its own order, answers sorted, notes, exit): JSON-RPC
// leaves free the order of answers to lines of one chunk, and nothing orders
// the two output streams against each other.
func normalise(events []event.Record) string {
	rank := map[event.Kind]int{event.Close: 0, event.Send: 1, event.Stderr: 2,
		event.Answer: 3, event.Note: 4, event.Exit: 5}
	sorted := append([]event.Record(nil), events...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.At != b.At {
			return a.At < b.At
		}
		if a.Kind != b.Kind {
			return rank[a.Kind] < rank[b.Kind]
		}
		// stderr is one stream, kept in its order; answers to one chunk may
		// come in any order.
		return a.Kind == event.Answer && a.Text < b.Text
	})
	var b strings.Builder
	for _, ev := range sorted {
		fmt.Fprintln(&b, ev.Line(true))
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("transcript differs from %s (go test -update rewrites it):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestLessonTranscript plays lesson 1's scenario against the reference
// server with fake time: the transcript, times included, is exact.
func TestLessonTranscript(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		run, err := stdioprobe.Play(context.Background(), lessonScenario(t), reference(), stdioprobe.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !run.Ready || !run.ExitedAfterClose || !run.Exit.OK() {
			t.Errorf("ready %v, exited after close %v, exit %v", run.Ready, run.ExitedAfterClose, run.Exit)
		}
		golden(t, "lesson1.golden", normalise(run.Events))
	})
}

// TestLessonTranscriptRealProcess plays the lesson against the real lab
// binary's reference server, over real pipes and real time. Times and the
// order between streams vary, so it compares the answers and the chunks.
func TestLessonTranscriptRealProcess(t *testing.T) {
	exe := buildLab(t)
	run, err := stdioprobe.Play(context.Background(), lessonScenario(t), proc.Command{Path: exe, Args: []string{"serve", "reader"}}, stdioprobe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sends, answers []string
	for _, ev := range run.Events {
		switch ev.Kind {
		case event.Send:
			sends = append(sends, ev.Line(false))
		case event.Answer:
			answers = append(answers, ev.Line(false))
		}
	}
	sort.Strings(answers)
	got := strings.Join(sends, "\n") + "\n--\n" + strings.Join(answers, "\n") + "\n"
	golden(t, "lesson1-process.golden", got)
	if !run.Exit.OK() {
		t.Errorf("server %v", run.Exit)
	}
}

func buildLab(t *testing.T) string {
	t.Helper()
	exe := t.TempDir() + "/lab"
	out, err := runGo("build", "-o", exe, "github.com/mcplab/mcplab/cmd/lab")
	if err != nil {
		t.Fatalf("building lab: %v\n%s", err, out)
	}
	return exe
}

// TestServerThatNeverReadies shows the bounded wait for the ready line.
func TestServerThatNeverReadies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := proc.InProcess(func(ctx context.Context, in io.Reader, out, errw io.Writer) int {
			_, _ = io.Copy(io.Discard, in)
			return 0
		})
		run, err := stdioprobe.Play(context.Background(), lessonScenario(t), quiet, stdioprobe.Options{ReadyWithin: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if run.Ready {
			t.Error("a server that logs nothing was taken as ready")
		}
		if !strings.Contains(normalise(run.Events), "1000ms -- no ready line on stderr within 1s; going on without it") {
			t.Errorf("no note about the missing ready line:\n%s", normalise(run.Events))
		}
		wantDeadlineNote(t, run, "no ready line on stderr within 1s; going on without it")
	})
}

// TestServerThatNeverExits shows the bounded wait after stdin closes.
func TestServerThatNeverExits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stuck := proc.InProcess(func(ctx context.Context, in io.Reader, out, errw io.Writer) int {
			io.WriteString(errw, "ready\n")
			_, _ = io.Copy(io.Discard, in)
			<-ctx.Done()
			return 0
		})
		run, err := stdioprobe.Play(context.Background(), lessonScenario(t), stuck, stdioprobe.Options{ExitWithin: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if run.ExitedAfterClose || !run.Killed || run.Exit.Signal != "killed" {
			t.Errorf("exited after close %v, killed %v, exit %v", run.ExitedAfterClose, run.Killed, run.Exit)
		}
		wantDeadlineNote(t, run, "the server was still running 2s after its stdin closed; the client stopped the server")
	})
}

// TestServerThatNeverReads shows that a server which stops reading cannot
// make the client hang on a write.
func TestServerThatNeverReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		deaf := proc.InProcess(func(ctx context.Context, in io.Reader, out, errw io.Writer) int {
			io.WriteString(errw, "ready\n")
			<-ctx.Done()
			return 0
		})
		run, err := stdioprobe.Play(context.Background(), lessonScenario(t), deaf, stdioprobe.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !run.Killed || !strings.Contains(run.KillReason, "did not read its stdin") {
			t.Errorf("killed %v (%q)", run.Killed, run.KillReason)
		}
		wantDeadlineNote(t, run, run.KillReason+"; the client stopped the server")
	})
}

// wantDeadlineNote fails t unless run noted text and marked it as a wait
// that ran out (event.Record.Deadline), and marked nothing but notes so:
// what draws a deadline reads the field, never the note's words.
func wantDeadlineNote(t *testing.T, run *stdioprobe.Run, text string) {
	t.Helper()
	found := false
	for _, ev := range run.Events {
		switch {
		case ev.Kind == event.Note && ev.Text == text:
			found = true
			if !ev.Deadline {
				t.Errorf("the note %q is not marked as a deadline", ev.Text)
			}
		case ev.Deadline && ev.Kind != event.Note:
			t.Errorf("the %s %q is marked as a deadline", ev.Kind, ev.Text)
		}
	}
	if !found {
		t.Errorf("no note %q:\n%s", text, normalise(run.Events))
	}
}

// flood is a server that never reads its stdin and writes 1 KB lines to
// stdout until it is stopped.
func flood() proc.InProcess {
	return func(ctx context.Context, in io.Reader, out, errw io.Writer) int {
		io.WriteString(errw, "ready\n")
		line := []byte(strings.Repeat("x", 1000) + "\n")
		for ctx.Err() == nil {
			if _, err := out.Write(line); err != nil {
				return 1
			}
		}
		return 0
	}
}

// TestOutputCap shows that a flood of output is cut off at the cap and the
// server stopped.
func TestOutputCap(t *testing.T) {
	run, err := stdioprobe.Play(context.Background(), lessonScenario(t), flood(), stdioprobe.Options{MaxOutput: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if !run.OutputCapped {
		t.Error("the flood was not capped")
	}
	if n := len(run.Answers); n > 1100 {
		t.Errorf("kept %d lines of a 1 MiB cap of 1 KB lines", n)
	}
}

// TestOutputCapWhileNotReading floods stdout from a server that never reads
// its stdin, so the client is stuck in a write when the cap stops the server:
// the run must say the output was capped, not that the run could not go on.
// Under -race it also covers stop's read of the cap, which a reader
// goroutine sets.
func TestOutputCapWhileNotReading(t *testing.T) {
	for range 20 {
		run, err := stdioprobe.Play(context.Background(), lessonScenario(t), flood(), stdioprobe.Options{MaxOutput: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		if !run.OutputCapped {
			t.Fatal("the flood was not capped")
		}
		if run.Killed && run.KillReason == "the run cannot go on" {
			t.Fatalf("a capped server was reported as %q", run.KillReason)
		}
	}
}
