package class_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
)

// startFailures are submissions whose run never starts a server, and what
// each one's problem must say.
var startFailures = map[string]struct {
	files   map[string]string
	want    []string
	wantNot []string
}{
	"typo": {map[string]string{"typo/run": "#!/bin/sh\nexec python3 typo.py\n"},
		[]string{"before it showed it was ready", "can't open file"}, nil},
	"exit-127": {map[string]string{"exit-127/run": "#!/bin/sh\necho 'cannot find my interpreter' >&2\nexit 127\n"},
		[]string{"exited with status 127", "Its last lines on stderr:\n  cannot find my interpreter"}, nil},
	"exit-126": {map[string]string{"exit-126/run": "#!/bin/sh\nexec ./notes.txt\n", "exit-126/notes.txt": "not a program\n"},
		[]string{"exited with status 126"}, nil},
	"crash-at-start": {map[string]string{"crash-at-start/run": "#!/bin/sh\necho 'cannot open config.json' >&2\nexit 3\n"},
		[]string{"exited with status 3 before it showed it was ready", "  cannot open config.json"}, nil},
	"bad-shebang": {map[string]string{"bad-shebang/run": "#!/nonexistent/python9\nprint('hi')\n"},
		[]string{"/nonexistent/python9"}, []string{"readable by that user", "permission"}},
}

// checkStartFailures grades the start failures in sb: each is ungradable,
// could-not-start, with no point and no check passed or failed.
func checkStartFailures(t *testing.T, sb sandbox.Sandbox, interpreterNamed bool) {
	files := map[string]string{}
	for _, sf := range startFailures {
		for p, c := range sf.files {
			files[p] = c
		}
	}
	subs := classOf(t, files)
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: sb, TimeScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Students) != len(startFailures) {
		t.Fatalf("%d students graded, want %d", len(c.Students), len(startFailures))
	}
	for _, s := range c.Students {
		sf := startFailures[s.Name]
		r := s.Result
		if r.Gradable || r.Outcome.Kind != grading.OutcomeCouldNotStart || r.Score != 0 || len(r.Failed()) != 0 || skipped(r) != len(r.Checks) {
			t.Errorf("%s: gradable %v, outcome %s, score %d, failed %v, %d of %d skipped; want could-not-start with every check skipped (%s)",
				s.Name, r.Gradable, r.Outcome.Kind, r.Score, r.Failed(), skipped(r), len(r.Checks), r.Problem)
		}
		want := sf.want
		if s.Name == "bad-shebang" && interpreterNamed {
			want = append(want, "its first line asks for the interpreter /nonexistent/python9, and there is no such program")
		}
		for _, w := range want {
			if !strings.Contains(r.Problem, w) {
				t.Errorf("%s: problem:\n%s\nwant it to contain:\n%s", s.Name, r.Problem, w)
			}
		}
		for _, w := range sf.wantNot {
			if strings.Contains(strings.ToLower(r.Problem), w) {
				t.Errorf("%s: problem:\n%s\nwant it not to say %q", s.Name, r.Problem, w)
			}
		}
	}
	var b strings.Builder
	if err := c.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bad-shebang", "crash-at-start", "exit-126", "exit-127", "typo"} {
		if !strings.Contains(b.String(), fmt.Sprintf("\n%s,,%d,ungradable,,", name, c.MaxScore)) {
			t.Errorf("grades.csv does not give %s the status ungradable:\n%s", name, b.String())
		}
	}
}

func TestUngradableStartProcessSandbox(t *testing.T) {
	t.Parallel()
	checkStartFailures(t, processSandbox(t), true)
}

func TestUngradableStartContainerSandbox(t *testing.T) {
	t.Parallel()
	checkStartFailures(t, containerSandbox(t), false)
}
