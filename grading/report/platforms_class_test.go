package report_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit/gradekit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/grading/serverlesson"
)

// TestClassReportsMeetTheirPlatforms grades a correct program of each
// lesson for real, and writes a lesson-1 class as grade-class writes it (a
// correct server, a broken one, and one whose build failed), then checks
// every report, each file of the class's folder included, against what its
// platform documents (see platforms_test.go).
func TestClassReportsMeetTheirPlatforms(t *testing.T) {
	if testing.Short() {
		t.Skip("grades four programs for real")
	}
	bins := report.BuildPrograms(t, t.TempDir())
	runs := []report.GradeRun{
		{"lesson1-correct", grading.Options{Lesson: 1}, proc.Command{Path: bins["student"]}},
		{"lesson1-banner", grading.Options{Lesson: 1}, proc.Command{Path: bins["student"], Args: []string{"-mistake", "banner"}}},
		{"lesson2-correct", grading.Options{Lesson: 2}, proc.Command{Path: bins["helpdesk"]}},
		{"lesson3-correct", grading.Options{Lesson: 3, Relay: []string{bins["lab"], "relay"}}, proc.Command{Path: bins["client"]}},
	}
	results, errs := report.GradeAll(runs)
	for i, run := range runs {
		if errs[i] != nil {
			t.Fatalf("%s: %v", run.Name, errs[i])
		}
	}
	for i, run := range runs {
		r := results[i]
		wantFailed := run.Name == "lesson1-banner"
		if !r.Gradable || (len(r.Failed()) > 0) != wantFailed {
			t.Errorf("%s: gradable %v, failed %q; want it gradable, with failures only for the broken server", run.Name, r.Gradable, r.Failed())
		}
	}

	platforms := report.NewPlatformChecker(t)
	for i, run := range runs[2:] {
		platforms.CheckResult(t, run.Name, results[i+2])
	}

	lesson, err := serverlesson.Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	students := []*class.Student{
		{Name: "ann", Result: results[0]},
		{Name: "bo", Result: results[1]},
		{Name: "cy", Result: class.Ungradable(lesson, grading.OutcomeBuildFailed, "The build step exited with status 1.", "main.go:1:1: expected 'package', found oops")},
	}
	c := &class.Class{Lesson: 1, Sandbox: "process", Jobs: 1, MaxScore: results[0].MaxScore, TimeScale: 1, Checks: lesson.Checks(), Students: students}
	dir := gradekit.WriteReports(t, c)
	formatOf := map[string]string{"github-summary.md": "github-summary"}
	for _, name := range report.Formats() {
		f, err := report.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		formatOf[f.File] = name
	}
	for _, s := range students {
		folder := filepath.Join(dir, class.StudentsDir, s.Name)
		entries, err := os.ReadDir(folder)
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, e := range entries {
			format, ok := formatOf[e.Name()]
			if !ok {
				t.Errorf("%s: %s is a file of no format", s.Name, e.Name())
				continue
			}
			doc, err := os.ReadFile(filepath.Join(folder, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			platforms.CheckFile(t, "class/"+s.Name+"/"+e.Name(), format, doc, s.Result)
			seen = append(seen, format)
		}
		for f := range formatOf {
			if !slices.Contains(seen, formatOf[f]) {
				t.Errorf("%s: the class folder has no %s", s.Name, f)
			}
		}
	}
}
