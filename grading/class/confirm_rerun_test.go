package class_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lab/proc"
)

// playedScenarios grades opts.Student with grade (grading.Grade, which
// confirms deadline failures as grade-class does, or one lesson's Grade)
// and returns the result with the scenarios each run played, in the order
// it played them: the first run, then the rerun that confirms its deadline
// failures, if there was one.
func playedScenarios(t *testing.T, grade func(context.Context, grading.Options) (*grading.Result, error), opts grading.Options) (*grading.Result, [][]string) {
	t.Helper()
	var mu sync.Mutex
	var runs [][]string
	opts.Kinds = kinds.Builtin()
	opts.Progress = grading.ProgressFunc(func(ev grading.ProgressEvent) {
		if ev.Kind != grading.ProgressScenarioStarted {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		// Index 1 starts a run (lesson 1 has no readiness probe).
		if ev.Index == 1 {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], ev.Name)
	})
	res, err := grade(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, runs
}

// A server that handles one request at a time fails order.concurrent on a
// deadline in 03-concurrent alone: the confirming rerun plays that
// scenario first, fails the check again there, and stops. The verdict is
// EXPECTED.md's, and it says the failure was confirmed.
func TestConfirmReplaysOnlyWhatShowsTheDeadlineAgain(t *testing.T) {
	t.Parallel()
	server := filepath.Join(testdata(t), "servers", "student_py", "server.py")
	res, runs := playedScenarios(t, grading.Grade, grading.Options{Lesson: 1, Student: proc.Command{Path: "python3", Args: []string{server, "--mistake", "sequential"}}})
	if len(runs) != 2 || len(runs[0]) != 11 || !slices.Contains(runs[1], "03-concurrent") {
		t.Fatalf("scenarios played: %v; want the 11 of lesson 1, then a rerun with 03-concurrent", runs)
	}
	// A machine loaded enough to make a check the server passes miss a
	// deadline in the first run (CI's fresh machines do: 06-not-json and
	// 07-not-an-object too) has the rerun play those scenarios as well, and
	// on to clear the checks; else the rerun is the one scenario that shows
	// the check again.
	if res.Confirmed != nil && slices.Equal(res.Confirmed.Rerun, []string{"order.concurrent"}) && !slices.Equal(runs[1], []string{"03-concurrent"}) {
		t.Errorf("the rerun played %v; want 03-concurrent alone, where order.concurrent failed again", runs[1])
	}
	want := readExpected(t)["py-sequential"]
	if string(res.Outcome.Kind) != want.outcome || tableScore(res) != want.score || !slices.Equal(res.Failed(), want.failed) {
		t.Errorf("outcome %s, score %s, failed %v; want EXPECTED.md's %s, %s, %v", res.Outcome.Kind, tableScore(res), res.Failed(), want.outcome, want.score, want.failed)
	}
	if res.Confirmed == nil || !slices.Contains(res.Confirmed.Rerun, "order.concurrent") || slices.Contains(res.Confirmed.Cleared, "order.concurrent") ||
		!strings.Contains(res.Outcome.Detail, "timed out again") {
		t.Errorf("confirmed %+v, detail %q: want order.concurrent rerun and not cleared, the timeout confirmed", res.Confirmed, res.Outcome.Detail)
	}
	for _, c := range res.Checks {
		if c.ID == "order.concurrent" && !strings.HasSuffix(c.Message, "it failed again, so it is the program, not a slow machine.)") {
			t.Errorf("order.concurrent says %q: want it to say it failed again", c.Message)
		}
	}
}

// The order a grade plays its scenarios in (Options.First) changes nothing
// in its result: evidence and transcript are in the lesson's order.
func TestPlayOrderLeavesTheResultAlone(t *testing.T) {
	t.Parallel()
	ref := reference(t)
	grade := func(first []string) (grading.Result, []string) {
		res, runs := playedScenarios(t, grading.Grade, grading.Options{Lesson: 1, Student: proc.Command{Path: ref[0], Args: ref[1:]}, TimeScale: 4, First: first})
		if len(runs) != 1 {
			t.Fatalf("%d runs of the reference, want 1", len(runs))
		}
		return normalised(res), runs[0]
	}
	inOrder, played := grade(nil)
	reversed := slices.Clone(played)
	slices.Reverse(reversed)
	backwards, playedBackwards := grade(reversed)
	if !slices.Equal(playedBackwards, reversed) {
		t.Errorf("played %v, want %v", playedBackwards, reversed)
	}
	if !reflect.DeepEqual(inOrder, backwards) {
		t.Errorf("the result played backwards differs from the one played in order:\n%+v\n---\n%+v", backwards, inOrder)
	}
}
