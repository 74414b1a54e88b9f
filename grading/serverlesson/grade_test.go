package serverlesson_test

import (
	"context"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
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
		"student": "../testdata/servers/student",
	} {
		exe, err := testkit.GoBuild(dir, name, pkg)
		if err != nil {
			return nil, err
		}
		out[name] = exe
	}
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

// wantGrade is what grading one server must find: the outcome, the exact
// set of failed checks, the score, and the exact set of skipped checks.
type wantGrade struct {
	outcome grading.OutcomeKind
	failed  []string
	score   int
	skipped []string
}

func grade(t *testing.T, starter proc.Starter, opts grading.Options) *grading.Result {
	t.Helper()
	opts.Student = starter
	res, err := serverlesson.Grade(context.Background(), opts)
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	return res
}

func check(t *testing.T, res *grading.Result, want wantGrade) {
	t.Helper()
	var skipped []string
	for _, c := range res.Checks {
		if c.Status == grading.StatusSkip {
			skipped = append(skipped, c.ID)
		}
	}
	if !reflect.DeepEqual(skipped, want.skipped) {
		t.Errorf("skipped checks %v, want %v", skipped, want.skipped)
	}
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
	checkEvidenceFields(t, res)
}

// quotedSentLine is a sent line as a failure's message quotes it (and not
// a line of stdout): line 3 `{...}`.
var quotedSentLine = regexp.MustCompile("(?:^|[^t] )line [0-9]+ `([^`]*)`")

// checkEvidenceFields checks that each failed check's fields say what its
// message says, for the timeline reads the fields alone: the scenario its
// message names is its first scenario, and the line it quotes first is its
// Line.
func checkEvidenceFields(t *testing.T, res *grading.Result) {
	t.Helper()
	for _, c := range res.Checks {
		if c.Status != grading.StatusFail {
			if c.Scenarios != nil || c.Line != "" {
				t.Errorf("%s (%s): scenarios %q, line %q", c.ID, c.Status, c.Scenarios, c.Line)
			}
			continue
		}
		// A scenario's name may hold a comma itself (a sweep's: "sweep-1-of-4
		// (cuts 42, one byte per write)"), so the message is matched
		// against the first scenario's name, not cut at a comma.
		if strings.HasPrefix(c.Message, "In scenario ") {
			if len(c.Scenarios) == 0 || !strings.HasPrefix(c.Message, "In scenario "+c.Scenarios[0]+",") {
				name, _, _ := strings.Cut(strings.TrimPrefix(c.Message, "In scenario "), ",")
				t.Errorf("%s names scenario %s... first, but its scenarios are %q", c.ID, name, c.Scenarios)
			}
		}
		want := ""
		if q := quotedSentLine.FindStringSubmatch(c.Message); q != nil {
			want = q[1]
		}
		// A long line is quoted cut, ending in "...".
		if (want == "") != (c.Line == "") || !strings.HasPrefix(c.Line, strings.TrimSuffix(want, "...")) {
			t.Errorf("%s quotes line %q first, but its line is %q:\n%s", c.ID, want, c.Line, c.Message)
		}
	}
}

// TestReferenceGetsFullMarks grades the lab's own reference server.
func TestReferenceGetsFullMarks(t *testing.T) {
	t.Parallel()
	res := grade(t, proc.Command{Path: bin(t, "lab"), Args: []string{"serve", "reader"}}, grading.Options{})
	check(t, res, wantGrade{outcome: grading.OutcomePassed, score: 21})
}

// TestKnownBadServers grades the student server with one mistake each: the
// grader must fail exactly the checks about that mistake, and no other.
func TestKnownBadServers(t *testing.T) {
	t.Parallel()
	beyondSeed := []string{"ids.string-or-integer", "methods.wait-params"}
	tests := map[string]wantGrade{
		"": {grading.OutcomePassed, nil, 21, nil},
		// One fault, one check: the lines it loses in 01-schedule are
		// charged to the framing checks alone (the split ping to
		// split-message, the ping after it to many-per-chunk), and the
		// parse errors its pieces got to nothing else. Every other line is
		// in a write of its own, which it reads right.
		"chunk-as-line": {grading.OutcomeWrongAnswers,
			[]string{"framing.split-message", "framing.many-per-chunk"}, 17, nil},
		// It takes the tail of a chunk for a whole line: the split ping
		// gets two parse errors and no answer, which framing.split-message
		// alone is charged with.
		"chunk-tail": {grading.OutcomeWrongAnswers, []string{"framing.split-message"}, 19, nil},
		// It drops what is running at end of input. The grader waits for
		// its answers before closing stdin, as a real client does, so only
		// 05-end-of-input, which closes stdin with a wait running, sees it.
		"abort-on-eof":          {grading.OutcomeWrongAnswers, []string{"methods.wait"}, 20, nil},
		"sequential":            {grading.OutcomeTimeout, []string{"order.concurrent"}, 19, nil},
		"answers-notifications": {grading.OutcomeWrongAnswers, []string{"notifications.silent"}, 20, nil},
		"stringify-ids":         {grading.OutcomeWrongAnswers, []string{"ids.exact"}, 19, nil},
		"banner":                {grading.OutcomeProtocolViolation, []string{"stdout.messages-only"}, 19, nil},
		// Its flood is counted, not kept, past what a run keeps; the
		// answers after it and its ready line are kept, so the flood
		// costs the one check it breaks.
		"newline-flood": {grading.OutcomeProtocolViolation, []string{"stdout.messages-only"}, 19, nil},
		"no-exit":       {grading.OutcomeTimeout, []string{"lifecycle.exit-on-eof"}, 20, nil},
		// It dies on the line of 06-not-json, the one line there (evidence
		// isolation): that line's check, and no other, is charged with it.
		"crash-on-bad-json": {grading.OutcomeExited, []string{"errors.parse"}, 20, nil},
		"no-ready":          {grading.OutcomeWrongAnswers, []string{"stderr.logs"}, 20, nil},
		// crash-at-start never starts: TestUngradableStart.
		// Seed 003's own two choices, and nothing else wrong.
		"seed-choices": {grading.OutcomeWrongAnswers, beyondSeed, 19, nil},
		// Its mistake shows only when a character is cut across writes,
		// which the lesson's scenarios never do; TestSweep catches it.
		"utf8-per-chunk": {grading.OutcomePassed, nil, 21, nil},
	}
	for mistake, want := range tests {
		t.Run("mistake="+mistake, func(t *testing.T) {
			t.Parallel()
			args := []string{}
			if mistake != "" {
				args = []string{"-mistake", mistake}
			}
			res := grade(t, proc.Command{Path: bin(t, "student"), Args: args}, grading.Options{})
			check(t, res, want)
		})
	}
}

// concat joins lists of check ids, then puts them in the catalogue's order.
func concat(lists ...[]string) []string {
	order := []string{"framing.split-message", "framing.many-per-chunk", "errors.parse", "errors.invalid-request",
		"notifications.silent", "methods.wait", "methods.unknown", "ids.exact", "answers.once", "order.concurrent",
		"stdout.messages-only", "stderr.logs", "lifecycle.exit-on-eof", "ids.string-or-integer", "methods.wait-params"}
	in := map[string]bool{}
	for _, l := range lists {
		for _, id := range l {
			in[id] = true
		}
	}
	var out []string
	for _, id := range order {
		if in[id] {
			out = append(out, id)
		}
	}
	return out
}

// TestFailuresSayWhichLine checks that a failure ties the expected answer
// to the line that asks for it, and that a line lost to framing is named by
// one framing check only: the split ping by framing.split-message, never by
// framing.many-per-chunk, though its last piece shares a write with the
// ping after it.
func TestFailuresSayWhichLine(t *testing.T) {
	t.Parallel()
	ping3 := "line 3 `{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}`"
	for mistake, want := range map[string]map[string]string{
		"chunk-as-line": {
			"framing.split-message":  "In scenario 01-schedule, the one line that was cut across two or more writes got no answer of its own: " + ping3 + ";",
			"framing.many-per-chunk": "In scenario 01-schedule, the one line that ends in a write holding the end of another line got no answer of its own: line 4 `{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}`;",
		},
		"chunk-tail": {
			"framing.split-message": "In scenario 01-schedule, the one line that was cut across two or more writes got no answer of its own: " + ping3 + ";",
		},
		"crash-on-bad-json": {
			"errors.parse": "In scenario 06-not-json, line 1 `{broken` should get -32700 (Parse error) with id null; nothing came for it; the server exited with status 2 before the scenario was over.",
		},
	} {
		t.Run(mistake, func(t *testing.T) {
			t.Parallel()
			res := grade(t, proc.Command{Path: bin(t, "student"), Args: []string{"-mistake", mistake}}, grading.Options{})
			for id, part := range want {
				if msg := message(t, res, id); !strings.HasPrefix(msg, part) {
					t.Errorf("%s says:\n%s\nwant it to start:\n%s", id, msg, part)
				}
			}
			if msg := message(t, res, "framing.many-per-chunk"); strings.Contains(msg, "id\":3,") {
				t.Errorf("framing.many-per-chunk names the split line 3, which framing.split-message is charged with:\n%s", msg)
			}
		})
	}
}

// TestMessagesSayWhatToDo checks that a failure tells the student what
// happened, what was expected, the rule and the fix.
func TestMessagesSayWhatToDo(t *testing.T) {
	t.Parallel()
	res := grade(t, proc.Command{Path: bin(t, "student"), Args: []string{"-mistake", "stringify-ids"}}, grading.Options{})
	var c *grading.CheckResult
	for i := range res.Checks {
		if res.Checks[i].ID == "ids.exact" {
			c = &res.Checks[i]
		}
	}
	if c == nil || c.Status != grading.StatusFail {
		t.Fatalf("ids.exact is %v, want a failure to inspect", c)
	}
	if !strings.HasPrefix(c.Expected, "id ") || strings.Contains(c.Message, "Expected:") {
		t.Errorf("expected %q should say which id, and only there (the message repeats no Expected):\n%s", c.Expected, c.Message)
	}
	for _, part := range []string{"carries id \"", "(a string)", "(a number)", "Rule: JSON-RPC 2.0", "Fix: Keep the id"} {
		if !strings.Contains(c.Message, part) {
			t.Errorf("message lacks %q:\n%s", part, c.Message)
		}
	}
	if c.Actual == "" || c.Expected == "" {
		t.Errorf("expected %q, actual %q: both should be set", c.Expected, c.Actual)
	}
}

// TestCannotStart is not a fail: the result is ungradable.
func TestCannotStart(t *testing.T) {
	t.Parallel()
	res := grade(t, proc.Command{Path: filepath.Join(t.TempDir(), "no-such-server")}, grading.Options{})
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
// keeps full marks, and a server that decodes each chunk as text on its own,
// which the lesson's own scenarios cannot show, fails framing.split-message
// in a sweep named with its seed, so the failure can be replayed.
func TestSweep(t *testing.T) {
	t.Parallel()
	res := grade(t, proc.Command{Path: bin(t, "lab"), Args: []string{"serve", "reader"}}, grading.Options{Sweep: 8, Cuts: 42})
	check(t, res, wantGrade{outcome: grading.OutcomePassed, score: 21})
	if res.Cuts == nil || *res.Cuts != 42 {
		t.Errorf("seed %v, want 42", res.Cuts)
	}
	bad := grade(t, proc.Command{Path: bin(t, "student"), Args: []string{"-mistake", "utf8-per-chunk"}}, grading.Options{Sweep: 4, Cuts: 42})
	// One fault, one check: the answer with the mangled id is the answer
	// the cut line got, charged to framing.split-message alone.
	check(t, bad, wantGrade{grading.OutcomeWrongAnswers, []string{"framing.split-message"}, 19, nil})
	want := "In scenario sweep-1-of-4 (cuts 42, one byte per write), 1 of the 11 lines that were cut across two or more writes got no answer of their own: line 12 `{\"jsonrpc\":\"2.0\",\"id\":\"naïve ☕\",\"method\":\"ping\"}`"
	if msg := message(t, bad, "framing.split-message"); !strings.HasPrefix(msg, want) {
		t.Errorf("framing.split-message says:\n%s\nwant it to start:\n%s", msg, want)
	}
}

// TestSweepIsReproducible checks that the same seed cuts the same places.
func TestSweepIsReproducible(t *testing.T) {
	t.Parallel()
	sends := func() []string {
		res := grade(t, proc.Command{Path: bin(t, "lab"), Args: []string{"serve", "reader"}}, grading.Options{Sweep: 3, Cuts: 7})
		var out []string
		for _, ev := range res.Transcript {
			if ev.Kind == event.Send && strings.HasPrefix(ev.Scenario, "sweep-3") {
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
