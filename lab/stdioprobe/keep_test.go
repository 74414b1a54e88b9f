package stdioprobe_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/stdioprobe"
)

// newlineFlood is the reference server behind a flood of bare newlines:
// n on stderr before its ready line, n on stdout before its first answer.
func newlineFlood(n int) proc.InProcess {
	ref := reference()
	return func(ctx context.Context, in io.Reader, out, errw io.Writer) int {
		blank := bytes.Repeat([]byte("\n"), n)
		if _, err := errw.Write(blank); err != nil {
			return 1
		}
		if _, err := out.Write(blank); err != nil {
			return 1
		}
		return ref(ctx, in, out, errw)
	}
}

// count gives how many events of run are of kind k.
func count(run *stdioprobe.Run, k event.Kind) int {
	n := 0
	for _, ev := range run.Events {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

// TestFloodIsCountedNotKept floods both streams with bare newlines, more
// than a run keeps: the first lines are kept, the rest counted as they
// arrive, and the answers that come after the flood are still kept, so
// every await is met and the server's ready line, far down its stderr,
// still counts.
func TestFloodIsCountedNotKept(t *testing.T) {
	const n = 3 * stdioprobe.KeptStdoutLines
	sc := lessonScenario(t)
	run, err := stdioprobe.Play(context.Background(), sc, newlineFlood(n), stdioprobe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !run.Ready || !run.ReadySeen {
		t.Errorf("ready %v, ready seen %v: the ready line after the flood was lost", run.Ready, run.ReadySeen)
	}
	if len(run.AwaitMissed) > 0 {
		t.Errorf("awaits missed %v: the answers after the flood were not kept", run.AwaitMissed)
	}
	blank, answers := 0, 0
	for _, a := range run.Answers {
		if a.Line == "" {
			blank++
		} else if a.Msg != nil {
			answers++
		}
	}
	if blank != stdioprobe.KeptStdoutLines {
		t.Errorf("%d blank stdout lines kept, want the first %d", blank, stdioprobe.KeptStdoutLines)
	}
	if answers == 0 {
		t.Error("no answer kept after the flood")
	}
	want := stdioprobe.NotKept{Lines: n - stdioprobe.KeptStdoutLines, Bytes: n - stdioprobe.KeptStdoutLines}
	if run.StdoutNotKept != want {
		t.Errorf("stdout not kept: %+v, want %+v", run.StdoutNotKept, want)
	}
	if got := count(run, event.Stderr); got != stdioprobe.KeptStderrLines+1 {
		t.Errorf("%d stderr events kept, want the first %d and the ready line", got, stdioprobe.KeptStderrLines)
	}
	if run.StderrLines <= n || run.StderrNotKept.Lines != run.StderrLines-stdioprobe.KeptStderrLines-1 {
		t.Errorf("stderr lines %d, not kept %+v: want every line counted, all but the first %d and the ready line not kept", run.StderrLines, run.StderrNotKept, stdioprobe.KeptStderrLines)
	}
	notes := map[string]bool{}
	for _, ev := range run.Events {
		if ev.Kind == event.Note {
			notes[ev.Text] = true
		}
	}
	for _, say := range []string{
		fmt.Sprintf("%d more lines (%d bytes) on stdout were counted, not kept: a run keeps the first 400 lines of a stream, and after them the answers to the scenario's ids", n-stdioprobe.KeptStdoutLines, n-stdioprobe.KeptStdoutLines),
		fmt.Sprintf("%d more lines (%d bytes) on stderr were counted, not kept: a run keeps the first 200 lines of a stream", run.StderrNotKept.Lines, run.StderrNotKept.Bytes),
	} {
		if !notes[say] {
			t.Errorf("no note %q in %v", say, notes)
		}
	}
}

// answersOverAndOver is the reference server with every line it writes written
// again and again: copies of each answer, past what a run keeps.
func answersOverAndOver(copies int) proc.InProcess {
	ref := reference()
	return func(ctx context.Context, in io.Reader, out, errw io.Writer) int {
		return ref(ctx, in, &repeater{w: out, copies: copies}, errw)
	}
}

type repeater struct {
	w      io.Writer
	copies int
}

func (r *repeater) Write(p []byte) (int, error) {
	if _, err := r.w.Write(bytes.Repeat(p, r.copies)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// TestRepeatedAnswersPastTheCapAreCounted answers every request many
// times: past the cap, each id keeps at most its allowance (an answer to
// each line with the id, and one again), and the other copies are counted
// as responses not kept.
func TestRepeatedAnswersPastTheCapAreCounted(t *testing.T) {
	sc := lessonScenario(t)
	run, err := stdioprobe.Play(context.Background(), sc, answersOverAndOver(200), stdioprobe.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.AwaitMissed) > 0 {
		t.Errorf("awaits missed %v", run.AwaitMissed)
	}
	if run.StdoutNotKept.Lines == 0 || run.StdoutNotKept.Responses != run.StdoutNotKept.Lines {
		t.Errorf("stdout not kept: %+v, want copies counted, every one a response", run.StdoutNotKept)
	}
	if n := len(run.Answers); n < stdioprobe.KeptStdoutLines || n > stdioprobe.KeptStdoutLines+100 {
		t.Errorf("%d answers kept: want the first %d and the few each id is allowed after them", n, stdioprobe.KeptStdoutLines)
	}
	if !strings.Contains(run.StdoutNotKept.Say("stdout", stdioprobe.KeptStdoutLines), "counted, not kept") {
		t.Error("no words for what was not kept")
	}
}
