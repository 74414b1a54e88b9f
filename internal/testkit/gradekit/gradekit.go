// Package gradekit holds the test helpers that need the grader itself:
// what a lesson is worth, and a class's reports written as grade-class
// writes them. Only external tests import it (package x_test): it imports
// the kinds, grading/class and grading/report, so a test inside one of
// those packages cannot.
package gradekit

import (
	"path/filepath"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/internal/kinds"
)

// FullMarks returns what the built-in lesson n is worth, the points of
// all its checks, or fails t when the lesson does not load.
func FullMarks(t testing.TB, n int) int {
	t.Helper()
	l, err := kinds.LoadLesson(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, c := range l.Checks() {
		points += c.Points
	}
	return points
}

// WriteReports writes the reports of every student of c, in every format,
// into a new results folder "out" of a fresh folder of t, and returns that
// results folder; any failure fails t.
func WriteReports(t testing.TB, c *class.Class) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	out, err := class.CreateOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteReports(out, report.Formats()); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
