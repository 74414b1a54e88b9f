package class_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// labClass makes a class in which each submission named in runs holds a
// copy of the lab binary and a run script that starts it with those
// arguments, and adds the test submissions named in others.
func labClass(t *testing.T, runs map[string]string, others ...string) string {
	t.Helper()
	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	files := copyOf(t, others...)
	for name, args := range runs {
		files[name+"/run"] = "#!/bin/sh\nexec \"$(dirname \"$0\")/lab\" " + args + "\n"
	}
	// A copy of the lab whose run script logs one line of its own first: the
	// same answers and exits as the reference, one log line more.
	if _, ok := runs["one-more-log"]; ok {
		files["one-more-log/run"] = "#!/bin/sh\necho 'log: starting the server' >&2\nexec \"$(dirname \"$0\")/lab\" " + runs["one-more-log"] + "\n"
	}
	subs := classOf(t, files)
	for name := range runs {
		if err := sandbox.CopyFile(bin, filepath.Join(subs, name, "lab"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return subs
}

// gradeFlags grades subs rounds times under load (a busy loop on the
// other core, the grading itself on this one) and checks each student's
// flags each time.
func gradeFlags(t *testing.T, rounds int, subs string, opts class.Options, want map[string][]string) {
	t.Helper()
	testkit.BusyCore(t)
	for round := range rounds {
		opts.WorkDir = testkit.OpenDir(t)
		c, err := class.Grade(context.Background(), subs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Students) != len(want) {
			t.Errorf("round %d: %d students graded, want %d", round+1, len(c.Students), len(want))
		}
		for _, s := range c.Students {
			w, ok := want[s.Name]
			if !ok {
				t.Errorf("round %d: %q graded, not in the class", round+1, s.Name)
				continue
			}
			if !slices.Equal(s.Flags, w) {
				t.Errorf("round %d, %q: flags %v, want %v (score %d/%d)\n%s", round+1, s.Name, s.Flags, w,
					s.Result.Score, s.Result.MaxScore, s.Result.Outcome.Detail)
			}
		}
	}
}

// TestSameTranscriptFlagUnderLoad grades lesson 1's reference server and
// copies of it (each started by a run script, as a student ships one),
// under load, several times: every copy is flagged each time. A copy of
// the lab whose run script logs one line more (the same answers and exits)
// and a correct server of its own are never flagged as the reference's
// run.
func TestSameTranscriptFlagUnderLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: grades lesson 1 several times")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the process sandbox runs each program as a user of its own")
	}
	subs := labClass(t, map[string]string{"copy-a": "serve reader", "copy-b": "serve reader", "copy-c": "serve reader",
		"one-more-log": "serve reader"}, "py-good")
	both := []string{class.FlagLabBinary, class.FlagReferenceTranscript}
	gradeFlags(t, 3, subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), Jobs: 3, TimeScale: 2, Reference: reference(t)},
		map[string][]string{"copy-a": both, "copy-b": both, "copy-c": both, "one-more-log": {class.FlagLabBinary}, "py-good": nil})
}

// TestSameClientRunFlagUnderLoad is the same for lesson 3: copies of the
// lab's client are flagged each time (twice: a lesson 3 grading is long);
// the test client with one mistake never is.
func TestSameClientRunFlagUnderLoad(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: grades lesson 3 several times")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the process sandbox runs each program as a user of its own")
	}
	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	subs := clientClass(t, map[string]string{"client-mistake": "same-id"})
	both := []string{class.FlagLabBinary, class.FlagReferenceTranscript}
	for _, name := range []string{"copy-a", "copy-b"} {
		dir := filepath.Join(subs, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := sandbox.CopyFile(bin, filepath.Join(dir, "lab"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "run"), []byte("#!/bin/sh\nexec \"$(dirname \"$0\")/lab\" client \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gradeFlags(t, 2, subs, class.Options{Kinds: kinds.Builtin(), Lesson: 3, Sandbox: processSandbox(t), Jobs: 3, TimeScale: 2, Reference: []string{bin, "client"}},
		map[string][]string{"copy-a": both, "copy-b": both, "client-mistake": nil})
}

// TestSameTranscriptFlagContainer is TestSameTranscriptFlagUnderLoad in
// the container sandbox, whose attach stream carries a server's output
// and drops what comes after the grader stops it.
func TestSameTranscriptFlagContainer(t *testing.T) {
	t.Parallel()
	sb := containerSandbox(t)
	subs := labClass(t, map[string]string{"copy-a": "serve reader", "copy-b": "serve reader", "one-more-log": "serve reader"}, "py-good")
	both := []string{class.FlagLabBinary, class.FlagReferenceTranscript}
	gradeFlags(t, 2, subs, class.Options{Kinds: kinds.Builtin(), Sandbox: sb, Jobs: 3, TimeScale: 2, Reference: reference(t),
		Root: filepath.Dir(subs), Share: []string{filepath.Join(testdata(t), "servers")}},
		map[string][]string{"copy-a": both, "copy-b": both, "one-more-log": {class.FlagLabBinary}, "py-good": nil})
}
