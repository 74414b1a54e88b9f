package serverlesson_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// TestUngradableStart grades programs that never start as a server, as
// `lab grade` runs them: each is could-not-start, not gradable, with no
// check passed or failed and no points, and its problem says what happened
// in the program's own words (its stderr) or names the missing interpreter.
func TestUngradableStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	script("data.txt", "not a program\n", 0o644)
	tests := map[string]struct {
		starter proc.Starter
		want    []string // in the problem
		wantNot []string
	}{
		"typo": {proc.Command{Path: "python3", Args: []string{filepath.Join(dir, "typo.py")}, Dir: dir},
			[]string{"exited with status 2 before it showed it was ready", "can't open file", "typo.py",
				`the lesson waits for a stderr line containing "ready"`}, nil},
		"exit-127": {proc.Command{Path: script("run127", "#!/bin/sh\necho 'cannot find my interpreter' >&2\nexit 127\n", 0o755)},
			[]string{"exited with status 127", "does not exist", "Its last lines on stderr:\n  cannot find my interpreter"}, nil},
		"exit-126": {proc.Command{Path: script("run126", "#!/bin/sh\nexec "+filepath.Join(dir, "data.txt")+"\n", 0o755)},
			[]string{"exited with status 126", "cannot be executed", "data.txt"}, nil},
		"crash-at-start": {proc.Command{Path: bin(t, "student"), Args: []string{"-mistake", "crash-at-start"}},
			[]string{"exited with status 3 before it showed it was ready", "student: cannot open config.json: no such file or directory"}, nil},
		"exit-0-at-once": {proc.Command{Path: script("run0", "#!/bin/sh\nexit 0\n", 0o755)},
			[]string{"exited with status 0 before it showed it was ready", "Its last lines on stderr:\n  (nothing)"}, nil},
		"bad-shebang": {proc.Command{Path: script("run", "#!/nonexistent/python9\nprint('hi')\n", 0o755)},
			[]string{"run exists, but its first line asks for the interpreter /nonexistent/python9, and there is no such program"},
			[]string{"no such file", "permission", "readable"}},
		"crlf-shebang": {proc.Command{Path: script("runcrlf", "#!/bin/sh\r\nexit 0\r\n", 0o755)},
			[]string{"runcrlf exists, but its first line (#!/bin/sh) ends in a Windows carriage return", "Unix line endings"},
			[]string{"no such file"}},
		"no-shebang": {proc.Command{Path: script("runbare", "echo hi\n", 0o755)},
			[]string{"runbare is neither a program this machine can run nor a script that starts with #!"}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := grade(t, tc.starter, grading.Options{})
			checkUngradable(t, res)
			for _, w := range tc.want {
				if !strings.Contains(res.Problem, w) {
					t.Errorf("problem:\n%s\nwant it to contain:\n%s", res.Problem, w)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(strings.ToLower(res.Problem), w) {
					t.Errorf("problem:\n%s\nwant it not to say %q", res.Problem, w)
				}
			}
		})
	}
}

// checkUngradable asserts a could-not-start result of lesson 1: not
// gradable, every check of the lesson skipped, no points.
func checkUngradable(t *testing.T, res *grading.Result) {
	t.Helper()
	lesson, err := serverlesson.Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	max := 0
	for _, c := range lesson.Checks() {
		max += c.Points
	}
	if res.Gradable || res.Outcome.Kind != grading.OutcomeCouldNotStart || res.Score != 0 || res.MaxScore != max {
		t.Errorf("gradable %v, outcome %s, score %d/%d; want could-not-start, 0/%d", res.Gradable, res.Outcome.Kind, res.Score, res.MaxScore, max)
	}
	for _, c := range res.Checks {
		if c.Status != grading.StatusSkip || c.Points != 0 {
			t.Errorf("%s: %s with %d point(s), want skipped with none", c.ID, c.Status, c.Points)
		}
	}
	if len(res.Checks) != len(lesson.Checks()) {
		t.Errorf("%d checks, want the lesson's %d", len(res.Checks), len(lesson.Checks()))
	}
	if res.Outcome.Detail == "" || res.Problem == "" {
		t.Error("an ungradable result must say why")
	}
}

// A server that never shows it is ready but answers is graded, even when
// it then dies: only a program that ends before it is ready, having
// answered nothing, did not start.
func TestNoReadyLineIsGraded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "run")
	// No ready line; it answers the first line it reads with a result for
	// id 1, then dies.
	if err := os.WriteFile(p, []byte("#!/bin/sh\nread line\necho '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := grade(t, proc.Command{Path: p}, grading.Options{TimeScale: 0.2})
	if !res.Gradable || res.Outcome.Kind == grading.OutcomeCouldNotStart {
		t.Errorf("gradable %v, outcome %s (%s); want graded", res.Gradable, res.Outcome.Kind, res.Outcome.Detail)
	}
}

// In a lesson whose manifest waits for a probe's answer, a program that
// ends without answering it did not start, and the problem names the
// readiness the manifest asks for (whatever the probe is).
func TestUngradableStartProbeLesson(t *testing.T) {
	t.Parallel()
	lesson, err := serverlesson.Load(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	ready := serverlesson.ReadinessFor(lesson.Manifest())
	res := grade(t, proc.Command{Path: "/bin/sh", Args: []string{"-c", "echo 'no config' >&2; exit 4"}}, grading.Options{Lesson: 2})
	if res.Gradable || res.Outcome.Kind != grading.OutcomeCouldNotStart || res.Score != 0 {
		t.Fatalf("gradable %v, outcome %s, score %d; want could-not-start, 0", res.Gradable, res.Outcome.Kind, res.Score)
	}
	for _, w := range []string{"exited with status 4 before it showed it was ready", ready.Describe(), "  no config"} {
		if !strings.Contains(res.Problem, w) {
			t.Errorf("problem:\n%s\nwant it to contain:\n%s", res.Problem, w)
		}
	}
	for _, c := range res.Checks {
		if c.Status != grading.StatusSkip {
			t.Errorf("%s: %s, want skipped", c.ID, c.Status)
		}
	}
}

// A program slow to fail, which the client stopped waiting for and sent
// the scenario to (as on a loaded machine), did not start all the same.
func TestUngradableStartSlowToFail(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "run")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nhead -c 1 >/dev/null\necho 'no config' >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Deadlines × 0.1: the client waits 300 ms for the ready line, then
	// goes on without it. The program fails only once it has read the
	// first byte sent, so it fails after that wait, however loaded the
	// machine is (a fixed sleep raced the scenario's own deadlines).
	res := grade(t, proc.Command{Path: p}, grading.Options{TimeScale: 0.1})
	checkUngradable(t, res)
	if w := "exited with status 2 before it showed it was ready, without answering anything"; !strings.Contains(res.Problem, w) {
		t.Errorf("problem:\n%s\nwant it to contain:\n%s", res.Problem, w)
	}
}
