package report

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// goldenPrograms are the known-bad programs the lesson goldens grade, and the
// lab binary lesson 3's relay runs, built once for the package's tests.
var goldenPrograms = map[string]string{
	"student":  "github.com/mcplab/mcplab/grading/testdata/servers/student",
	"helpdesk": "github.com/mcplab/mcplab/grading/testdata/servers/helpdesk",
	"client":   "github.com/mcplab/mcplab/grading/testdata/clients/student",
	"lab":      "github.com/mcplab/mcplab/cmd/lab",
}

// buildGolden builds the programs of goldenPrograms into dir, in one go
// build, and returns each one's path.
func buildGolden(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for name, pkg := range goldenPrograms {
		exe, err := testkit.GoBuild(dir, name, pkg)
		if err != nil {
			t.Fatal(err)
		}
		paths[name] = exe
	}
	return paths
}

// GradeRun is one program that GradeAll grades for real: its name, the
// options of its lesson, and the command that starts it.
type GradeRun struct {
	Name string
	Opts grading.Options
	Cmd  proc.Command
}

// GradeAll grades every run at once, each by its lesson's kind, and
// returns their results and errors in the order of runs.
func GradeAll(runs []GradeRun) ([]*grading.Result, []error) {
	results := make([]*grading.Result, len(runs))
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Go(func() {
			opts := run.Opts
			opts.Student = run.Cmd
			results[i], errs[i] = kinds.Grade(context.Background(), opts)
		})
	}
	wg.Wait()
	return results, errs
}

// durations are the measured times a report may quote ("took 1.23s",
// "310ms"), replaced by "<time>" so a golden does not depend on the machine.
var durations = regexp.MustCompile(`\b[0-9]+(\.[0-9]+)?(ns|µs|ms|s|m)\b`)

// TestGoldenLessonReports grades one known-bad program per lesson for real
// and compares the whole text report with a golden file (times normalised),
// so that a duplicated Expected line, an empty Actual line or a "more places"
// list that repeats a scenario shows up as a diff. go test -update rewrites
// the goldens.
func TestGoldenLessonReports(t *testing.T) {
	if testing.Short() {
		t.Skip("grades three programs for real")
	}
	bins := buildGolden(t, t.TempDir())
	cases := []GradeRun{
		{"lesson1-banner", grading.Options{Lesson: 1}, proc.Command{Path: bins["student"], Args: []string{"-mistake", "banner"}}},
		{"lesson1-chunk-as-line", grading.Options{Lesson: 1}, proc.Command{Path: bins["student"], Args: []string{"-mistake", "chunk-as-line"}}},
		{"lesson1-no-exit", grading.Options{Lesson: 1}, proc.Command{Path: bins["student"], Args: []string{"-mistake", "no-exit"}}},
		{"lesson1-sequential", grading.Options{Lesson: 1}, proc.Command{Path: bins["student"], Args: []string{"-mistake", "sequential"}}},
		{"lesson2-method-message", grading.Options{Lesson: 2}, proc.Command{Path: bins["helpdesk"], Args: []string{"-mistake", "method-message"}}},
		{"lesson3-trust-readonly", grading.Options{Lesson: 3, Relay: []string{bins["lab"], "relay"}}, proc.Command{Path: bins["client"], Args: []string{"-mistake", "trust-readonly"}}},
		{"lesson3-namespaced", grading.Options{Lesson: 3, Relay: []string{bins["lab"], "relay"}}, proc.Command{Path: bins["client"], Args: []string{"-mistake", "namespaced"}}},
	}
	results, errs := GradeAll(cases)
	// Every format of these real reports meets what its platform documents.
	platforms := newPlatformChecker(t)
	for i, c := range cases {
		var b bytes.Buffer
		if errs[i] == nil {
			errs[i] = Write(&b, FormatText, results[i], Options{})
		}
		if errs[i] != nil {
			t.Errorf("%s: %v", c.Name, errs[i])
			continue
		}
		got := durations.ReplaceAll(b.Bytes(), []byte("<time>"))
		text := string(got)
		for n, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if strings.TrimSpace(line) == "" || strings.TrimSpace(line) == "Actual:" || strings.TrimSpace(line) == "Expected:" {
				t.Errorf("%s: line %d of the report is empty or has an empty side: %q", c.Name, n+1, line)
			}
			if strings.Count(line, "Expected: ") > 1 || (strings.Contains(line, "Expected: ") && !strings.HasPrefix(strings.TrimSpace(line), "Expected: ")) {
				t.Errorf("%s: line %d repeats what the Expected line says: %q", c.Name, n+1, line)
			}
		}
		golden(t, c.Name+".text", got)
		platforms.checkResult(t, c.Name, results[i])
	}
}
