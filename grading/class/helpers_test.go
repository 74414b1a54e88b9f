package class_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/internal/testkit/containers"
)

// testdata is the folder that holds the test submissions and the servers
// their run scripts start by relative path.
func testdata(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// expectation is one row of grading/testdata/submissions/EXPECTED.md.
type expectation struct {
	name, outcome, score string
	failed, skipped      []string // "all" in skipped means every check
}

// expectedRows returns the rows of EXPECTED.md's tables that have n
// columns, header and rule rows left out, each as its trimmed cells.
func expectedRows(t testing.TB, n int) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata(t), "submissions", "EXPECTED.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != n+2 {
			continue
		}
		cells = cells[1 : n+1]
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if cells[0] == "Submission" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		rows = append(rows, cells)
	}
	return rows
}

// cellList splits a table cell that lists things: "-" is none.
func cellList(s string) []string {
	if s == "-" || s == "" {
		return nil
	}
	var out []string
	for _, x := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(x))
	}
	return out
}

// readExpected parses the table of EXPECTED.md, the one account of what
// each test submission must get.
func readExpected(t testing.TB) map[string]expectation {
	t.Helper()
	rows := map[string]expectation{}
	for _, c := range expectedRows(t, 5) {
		rows[c[0]] = expectation{name: c[0], outcome: c[1], score: c[2], failed: cellList(c[3]), skipped: cellList(c[4])}
	}
	if len(rows) < 10 {
		t.Fatalf("EXPECTED.md: only %d rows read; has its table changed shape?", len(rows))
	}
	return rows
}

// processSandbox is a process sandbox whose launcher is the lab binary, as
// in production (and never slowed by -race, unlike this test binary).
func processSandbox(t testing.TB) sandbox.Sandbox {
	t.Helper()
	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	sb := sandbox.NewProcess([]string{bin, "grade-class", "sandbox-exec"})
	t.Cleanup(func() { sb.Close() })
	return sb
}

// containerSandbox skips the test when the container sandbox cannot run
// (or fails it when MCPLAB_REQUIRE_DOCKER=1).
func containerSandbox(t *testing.T) sandbox.Sandbox {
	t.Helper()
	return containers.Sandbox(t)
}

// goSeed warms this machine's seed Go cache once for the whole test binary
// (the first time on a machine, that compiles part of the standard library).
var goSeed = sync.OnceValues(func() (string, error) {
	dir, err := sandbox.GoSeedDir()
	if err != nil {
		return "", err
	}
	return dir, sandbox.WarmGoCache(context.Background(), dir)
})

func seed(t testing.TB) string {
	t.Helper()
	dir, err := goSeed()
	if err != nil {
		t.Logf("no seed Go cache (Go builds start cold): %v", err)
		return ""
	}
	return dir
}

// labDir is the folder TestMain makes for the lab binary the tests build,
// and removes at the end.
var labDir string

// labBinary builds the lab once for the test binary: the process sandbox's
// launcher ("lab grade-class sandbox-exec") and the reference server ("lab
// serve reader") that calibration and the benchmarks run. Static, so that
// a copy shipped in a submission also runs in the container sandbox's
// image.
var labBinary = sync.OnceValues(func() (string, error) {
	return testkit.GoBuildStatic(labDir, "lab", "../../cmd/lab")
})

// reference is the reference server, for calibration.
func reference(t testing.TB) []string {
	t.Helper()
	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	return []string{bin, "serve", "reader"}
}

// classOf makes a class in a fresh folder: SUBMISSIONS/NAME/FILE for each
// entry of files (FILE "run" and "build" executable), with a copy
// "servers" of the test servers beside SUBMISSIONS, so run scripts written
// like the test submissions (../../servers/...) work wherever the checkout
// sits: a link to it would lead a sandboxed program out of the class
// folder, to a path its private /tmp or a 0700 home hides. It returns the
// submissions folder.
func classOf(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := testkit.OpenDir(t)
	testkit.CopyTree(t, filepath.Join(testdata(t), "servers"), filepath.Join(dir, "servers"))
	subs := filepath.Join(dir, "submissions")
	for path, content := range files {
		p := filepath.Join(subs, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if b := filepath.Base(p); b == "run" || b == "build" {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return subs
}

// copyOf returns the files of test submissions, for classOf.
func copyOf(t testing.TB, names ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, n := range names {
		entries, err := os.ReadDir(filepath.Join(testdata(t), "submissions", n))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(testdata(t), "submissions", n, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[n+"/"+e.Name()] = string(data)
		}
	}
	return files
}

// gradeInto grades the class subs with opts into the new results folder
// outDir as lab grade-class does: student(out, s) as each student's
// grading ends (its first error fails t once the grading is over), then
// whole(out, c) if it is not nil, the gradebook, and the folder closed.
func gradeInto(t *testing.T, subs, outDir string, opts class.Options,
	student func(*class.Out, *class.Student) error, whole func(*class.Out, *class.Class) error) *class.Class {
	t.Helper()
	out, err := class.CreateOut(outDir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var writeErr error
	opts.OnResult = func(_, _ int, s *class.Student) {
		err := student(out, s)
		mu.Lock()
		defer mu.Unlock()
		if err != nil && writeErr == nil {
			writeErr = err
		}
	}
	c, err := class.Grade(context.Background(), subs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if writeErr != nil {
		t.Fatal(writeErr)
	}
	if whole != nil {
		if err := whole(out, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.WriteGradebook(out); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return c
}

// hostileNeeds skips a hostile class's process-sandbox test under -short
// (long says why) and when it does not run as root.
func hostileNeeds(t *testing.T, long string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + long)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: without it the process sandbox keeps the grader's user, and holds much less (see README)")
	}
}

// tableScore is r's score as the EXPECTED.md tables of the hostile
// classes write it: SCORE/MAX, or "-" for a result that is not gradable.
func tableScore(r *grading.Result) string {
	if !r.Gradable {
		return "-"
	}
	return strconv.Itoa(r.Score) + "/" + strconv.Itoa(r.MaxScore)
}

// programClass makes a class in a fresh folder: each submission NAME
// holds a copy of the program exe as the file program, and the run
// script runs[NAME]; extra, when not nil, adds more files to each
// submission's folder. It returns the submissions folder.
func programClass(t testing.TB, exe, program string, runs map[string]string, extra func(dir string)) string {
	t.Helper()
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	subs := filepath.Join(testkit.OpenDir(t), "submissions")
	for name, run := range runs {
		dir := filepath.Join(subs, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if extra != nil {
			extra(dir)
		}
		if err := os.WriteFile(filepath.Join(dir, program), data, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "run"), []byte(run), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return subs
}

// checkFailedSets checks that every student of c is gradable, fails
// exactly the checks want names for it and has none left unjudged; it
// logs the message of each check failed when they differ.
func checkFailedSets(t testing.TB, c *class.Class, want map[string][]string) {
	t.Helper()
	if len(c.Students) != len(want) {
		t.Fatalf("graded %d students, want %d", len(c.Students), len(want))
	}
	for _, st := range c.Students {
		res := st.Result
		var skipped []string
		for _, ch := range res.Checks {
			if ch.Status == grading.StatusSkip {
				skipped = append(skipped, ch.ID+": "+ch.Message)
			}
		}
		if got := res.Failed(); !reflect.DeepEqual(got, want[st.Name]) || len(skipped) > 0 || !res.Gradable {
			t.Errorf("%s: failed %v, want %v; skipped %v; %s %s", st.Name, got, want[st.Name], skipped, res.Outcome.Kind, res.Problem)
			for _, ch := range res.Checks {
				if ch.Status == grading.StatusFail {
					t.Logf("%s: %s", ch.ID, ch.Message)
				}
			}
		}
	}
}
