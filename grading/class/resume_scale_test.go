package class_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
)

// earlierRun writes a results folder holding one record per student, each
// graded under with at the scale given, and returns the folder.
func earlierRun(t *testing.T, with class.GradedWith, students map[string]float64, results map[string]*grading.Result) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "earlier")
	out, err := class.CreateOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, scale := range students {
		w := with
		w.TimeScale = scale
		res := results[name]
		if res == nil {
			// A result the grader could give: LoadEarlier reuses no other.
			res = &grading.Result{Lesson: with.Lesson, Gradable: true, Score: 3, MaxScore: 3,
				Outcome:    grading.Outcome{Kind: grading.OutcomePassed, Detail: "Every check passed."},
				Checks:     []grading.CheckResult{{ID: "a", Status: grading.StatusPass, Points: 3, MaxPoints: 3}},
				Submission: &grading.Submission{Name: name, Hash: "h-" + name}}
		}
		if err := out.WriteStudentRecord(&class.Student{Name: name, Result: res}, w); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A calibrated run's records keep its scale: asked for no scale, the
// earlier results give theirs and are reused; asked for another, none is,
// and each student's reason says so; records of two scales are refused
// without a scale to choose between them.
func TestResumeScaleFromRecords(t *testing.T) {
	with := class.GradedWith{LabVersion: "v1", LabHash: "abc", Lesson: 1}
	dir := earlierRun(t, with, map[string]float64{"ann": 1.15, "ben": 1.15, "cleo": 1.15}, map[string]*grading.Result{
		"ben":  {Gradable: true, Flaky: true, Submission: &grading.Submission{Hash: "h-ben"}},
		"cleo": {Outcome: grading.Outcome{Kind: grading.OutcomeCouldNotStart}, Submission: &grading.Submission{Hash: "h-cleo"}},
	})

	e, err := class.LoadEarlier(dir, with)
	if err != nil {
		t.Fatal(err)
	}
	if e.TimeScale != 1.15 || e.Len() != 3 || e.Skipped != 0 {
		t.Fatalf("LoadEarlier without a scale: scale %g, %d reusable, %d skipped; want 1.15, 3, 0", e.TimeScale, e.Len(), e.Skipped)
	}
	ann := e.Reuse("ann", &grading.Submission{Hash: "h-ann"})
	if ann == nil || !e.Reused(ann) {
		t.Fatal("ann's unchanged result was not reused")
	}
	for name, want := range map[string]string{
		"ben":  "its earlier result was flaky: two runs of it disagreed",
		"cleo": "it could not be graded in the earlier run (outcome could-not-start), and such a result is never reused",
		"dan":  "it was not graded in the earlier run",
	} {
		if s := e.Reuse(name, &grading.Submission{Hash: "h-" + name}); s != nil {
			t.Errorf("%s was reused", name)
		}
		if got := e.WhyNot(&class.Student{Name: name}); got != want {
			t.Errorf("%s: WhyNot = %q, want %q", name, got, want)
		}
	}
	if s := e.Reuse("ann", &grading.Submission{Hash: "changed"}); s != nil {
		t.Error("ann's result was reused for other files")
	}
	if got := e.WhyNot(&class.Student{Name: "ann"}); got != "its files changed since the earlier run" {
		t.Errorf("ann, changed: WhyNot = %q", got)
	}
	if got := e.WhyNot(&class.Student{Name: "ann", Flags: []string{class.FlagUnidentified}}); got != "its files could not be identified in this run, so they cannot be shown unchanged" {
		t.Errorf("ann, unidentified: WhyNot = %q", got)
	}

	asked := with
	asked.TimeScale = 2
	e, err = class.LoadEarlier(dir, asked)
	if err != nil {
		t.Fatal(err)
	}
	if e.TimeScale != 2 || e.Len() != 0 || e.OtherScale != 3 || len(e.Scales) != 1 || e.Scales[0] != 1.15 {
		t.Fatalf("LoadEarlier at × 2: scale %g, %d reusable, %d at another scale %v", e.TimeScale, e.Len(), e.OtherScale, e.Scales)
	}
	if got, want := e.WhyNot(&class.Student{Name: "ann"}), "it was graded with deadlines × 1.15, not the × 2 of this run"; got != want {
		t.Errorf("WhyNot = %q, want %q", got, want)
	}

	other := with
	other.Lesson = 2
	e, err = class.LoadEarlier(dir, other)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.WhyNot(&class.Student{Name: "ann"}), "it was graded against lesson 1, not lesson 2"; e.Len() != 0 || got != want {
		t.Errorf("another lesson: %d reusable, WhyNot = %q, want %q", e.Len(), got, want)
	}

	mixed := earlierRun(t, with, map[string]float64{"ann": 1.15, "ben": 3}, nil)
	_, err = class.LoadEarlier(mixed, with)
	if err == nil || err.Error() != "the earlier results "+mixed+" were graded under several time scales (× 1.15, × 3): pass --time-scale to say which results to reuse" {
		t.Errorf("records of two scales, no scale asked: %v", err)
	}
	if e, err := class.LoadEarlier(mixed, asked); err != nil || e.Len() != 0 || e.OtherScale != 2 {
		t.Errorf("records of two scales, × 2 asked: %v", err)
	}

	// A record of an older lab, which stored 0 for a calibrated scale, is
	// never reused: its deadlines are unknown.
	old := earlierRun(t, with, map[string]float64{"ann": 0}, nil)
	e, err = class.LoadEarlier(old, with)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := e.WhyNot(&class.Student{Name: "ann"}), "the earlier run did not record the scale of its deadlines"; e.Len() != 0 || e.TimeScale != 0 || got != want {
		t.Errorf("a record of scale 0: %d reusable, scale %g, WhyNot %q", e.Len(), e.TimeScale, got)
	}
}

// A folder that is not an earlier run's results is refused, by name.
func TestResumeFromNotResults(t *testing.T) {
	base := t.TempDir()
	plain := filepath.Join(base, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		plain:                         "were not made by lab grade-class",
		link:                          "are a symbolic link",
		filepath.Join(base, "absent"): "do not exist",
	} {
		if _, err := class.LoadEarlier(dir, class.GradedWith{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadEarlier(%s): %v, want an error saying %q", dir, err, want)
		}
	}
}

// RemoveIfEmpty removes a results folder no result was written to, and
// keeps one that holds a student's.
func TestOutRemoveIfEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, err := class.CreateOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	if removed, err := out.RemoveIfEmpty(); err != nil || !removed {
		t.Fatalf("RemoveIfEmpty of a fresh folder: %v, %v", removed, err)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Fatal("the empty results folder is still there")
	}
	out, err = class.CreateOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &class.Student{Name: "ann", Result: &grading.Result{Gradable: true}}
	if err := out.WriteStudentRecord(s, class.GradedWith{TimeScale: 1}); err != nil {
		t.Fatal(err)
	}
	if removed, err := out.RemoveIfEmpty(); err != nil || removed {
		t.Fatalf("RemoveIfEmpty of a folder with a result: %v, %v", removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "students", "ann", class.StudentRecordFile)); err != nil {
		t.Errorf("ann's record is gone: %v", err)
	}
}
