// Package lessonkit holds the test helpers that need the lessons
// themselves (through their kinds): what a lesson is worth. Only tests
// import it; a kind's own internal tests cannot (it imports the kinds).
package lessonkit

import (
	"testing"

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
