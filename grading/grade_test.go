package grading_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/client"
)

// binaries builds, once per test run, the lab and the test student server.
var binaries = sync.OnceValues(func() (map[string]string, error) {
	dir, err := osMkdirTemp()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, pkg := range map[string]string{
		"lab":     "github.com/mcplab/mcplab/cmd/lab",
		"student": "./testdata/servers/student",
	} {
		exe := filepath.Join(dir, name)
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, pkg)
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, &buildError{pkg, string(b), err}
		}
		out[name] = exe
	}
	// The starter is a module of its own, as students get it.
	exe := filepath.Join(dir, "starter")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-C", "../lessons/01-reading-messages/starter", "-o", exe, ".")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, &buildError{"the starter", string(b), err}
	}
	out["starter"] = exe
	return out, nil
})

func bin(t testing.TB, name string) string {
	t.Helper()
	m, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	return m[name]
}

// wantGrade is what grading one server must find.
type wantGrade struct {
	outcome grading.OutcomeKind
	failed  []string
	score   int
}

func grade(t *testing.T, starter client.Starter, opts grading.Options) *grading.Result {
	t.Helper()
	opts.Starter = starter
	res, err := grading.Grade(context.Background(), opts)
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	return res
}

func check(t *testing.T, res *grading.Result, want wantGrade) {
	t.Helper()
	if got := res.Failed(); !reflect.DeepEqual(got, want.failed) {
		t.Errorf("failed checks %v, want %v", got, want.failed)
		for _, c := range res.Checks {
			if c.Status == grading.StatusFail {
				t.Logf("%s: %s", c.ID, c.Message)
			}
		}
	}
	if res.Outcome.Kind != want.outcome {
		t.Errorf("outcome %s (%s), want %s", res.Outcome.Kind, res.Outcome.Detail, want.outcome)
	}
	if res.Score != want.score || res.MaxScore != 21 {
		t.Errorf("score %d/%d, want %d/21", res.Score, res.MaxScore, want.score)
	}
	if !res.Gradable {
		t.Errorf("not gradable: %s", res.Problem)
	}
}

// TestReferenceGetsFullMarks grades the lab's own reference server.
func TestReferenceGetsFullMarks(t *testing.T) {
	t.Parallel()
	res := grade(t, client.Command{Path: bin(t, "lab"), Args: []string{"serve", "reader"}}, grading.Options{})
	check(t, res, wantGrade{outcome: grading.OutcomeGraded, score: 21})
}

// TestKnownBadServers grades the student server with one mistake each: the
// grader must flag that mistake, and say what else it breaks.
func TestKnownBadServers(t *testing.T) {
	tests := map[string]wantGrade{
		"":                      {grading.OutcomeGraded, nil, 21},
		"chunk-as-line":         {grading.OutcomeWrongAnswers, []string{"framing.split-message", "framing.many-per-chunk", "errors.invalid-request", "methods.wait", "methods.unknown", "answers.once"}, 10},
		"sequential":            {grading.OutcomeTimeout, []string{"order.concurrent"}, 19},
		"answers-notifications": {grading.OutcomeWrongAnswers, []string{"notifications.silent"}, 20},
		"stringify-ids":         {grading.OutcomeWrongAnswers, []string{"ids.exact"}, 19},
		"banner":                {grading.OutcomeProtocolViolation, []string{"stdout.messages-only"}, 19},
		"no-exit":               {grading.OutcomeTimeout, []string{"lifecycle.exit-on-eof"}, 20},
		"crash-on-bad-json":     {grading.OutcomeExited, []string{"framing.many-per-chunk", "errors.parse", "errors.invalid-request", "methods.wait", "answers.once", "lifecycle.exit-on-eof"}, 11},
		"no-ready":              {grading.OutcomeGraded, []string{"stderr.logs"}, 20},
		"crash-at-start": {grading.OutcomeExited, []string{"framing.split-message", "framing.many-per-chunk", "errors.parse", "errors.invalid-request",
			"methods.wait", "methods.unknown", "answers.once", "order.concurrent", "lifecycle.exit-on-eof"}, 1},
	}
	for mistake, want := range tests {
		t.Run("mistake="+mistake, func(t *testing.T) {
			t.Parallel()
			args := []string{}
			if mistake != "" {
				args = []string{"-mistake", mistake}
			}
			if mistake == "no-ready" {
				want.outcome = grading.OutcomeWrongAnswers
			}
			res := grade(t, client.Command{Path: bin(t, "student"), Args: args}, grading.Options{})
			check(t, res, want)
		})
	}
}

// TestStarterAsShipped pins what the lesson's README promises: the starter
// builds, runs, and passes the checks its TODOs do not touch.
func TestStarterAsShipped(t *testing.T) {
	t.Parallel()
	res := grade(t, client.Command{Path: bin(t, "starter")}, grading.Options{})
	check(t, res, wantGrade{grading.OutcomeTimeout, []string{"framing.split-message", "framing.many-per-chunk",
		"errors.invalid-request", "methods.wait", "methods.unknown", "answers.once", "order.concurrent"}, 8})
}

// TestMessagesSayWhatToDo checks that a failure tells the student what
// happened, what was expected, the rule and the fix.
func TestMessagesSayWhatToDo(t *testing.T) {
	t.Parallel()
	res := grade(t, client.Command{Path: bin(t, "student"), Args: []string{"-mistake", "stringify-ids"}}, grading.Options{})
	for _, c := range res.Checks {
		if c.ID != "ids.exact" {
			continue
		}
		for _, part := range []string{"carries id \"", "(a string)", "(a number)", "Expected: id ", "Rule: JSON-RPC 2.0", "Fix: Keep the id"} {
			if !strings.Contains(c.Message, part) {
				t.Errorf("message lacks %q:\n%s", part, c.Message)
			}
		}
		if c.Actual == "" || c.Expected == "" {
			t.Errorf("expected %q, actual %q: both should be set", c.Expected, c.Actual)
		}
	}
}

// TestCannotStart is not a fail: the result is ungradable.
func TestCannotStart(t *testing.T) {
	t.Parallel()
	res := grade(t, client.Command{Path: filepath.Join(t.TempDir(), "no-such-server")}, grading.Options{})
	if res.Gradable || res.Outcome.Kind != grading.OutcomeCouldNotStart || len(res.Failed()) != 0 {
		t.Errorf("gradable %v, outcome %v, failed %v", res.Gradable, res.Outcome, res.Failed())
	}
	for _, c := range res.Checks {
		if c.Status != grading.StatusSkip {
			t.Errorf("%s is %s, want skip", c.ID, c.Status)
		}
	}
}

// TestSweep replays the messages cut at seeded places: the reference server
// keeps full marks, and a server that takes chunks for lines is caught with
// the seed named so the failure can be replayed.
func TestSweep(t *testing.T) {
	t.Parallel()
	res := grade(t, client.Command{Path: bin(t, "lab"), Args: []string{"serve", "reader"}}, grading.Options{Sweep: 8, Seed: 42})
	check(t, res, wantGrade{outcome: grading.OutcomeGraded, score: 21})
	if res.Seed == nil || *res.Seed != 42 {
		t.Errorf("seed %v, want 42", res.Seed)
	}
	bad := grade(t, client.Command{Path: bin(t, "student"), Args: []string{"-mistake", "chunk-as-line"}}, grading.Options{Sweep: 4, Seed: 42})
	found := false
	for _, ev := range bad.Transcript {
		if strings.HasPrefix(ev.Scenario, "sweep-1-of-4 (seed 42, one byte per write)") {
			found = true
			break
		}
	}
	if !found {
		t.Error("the transcript has no sweep scenario named with its seed")
	}
}

// TestSweepIsReproducible checks that the same seed cuts the same places.
func TestSweepIsReproducible(t *testing.T) {
	t.Parallel()
	sends := func() []string {
		res := grade(t, client.Command{Path: bin(t, "lab"), Args: []string{"serve", "reader"}}, grading.Options{Sweep: 3, Seed: 7})
		var out []string
		for _, ev := range res.Transcript {
			if ev.Kind == grading.EventSend && strings.HasPrefix(ev.Scenario, "sweep-3") {
				out = append(out, ev.Text)
			}
		}
		return out
	}
	a, b := sends(), sends()
	if len(a) < 2 || !reflect.DeepEqual(a, b) {
		t.Errorf("two sweeps with seed 7 cut differently (%d and %d writes)", len(a), len(b))
	}
}
