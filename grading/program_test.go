package grading_test

import (
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/internal/kinds"
)

// TestProgramOfALoadedLesson: a lesson LoadLesson loads knows what its
// student writes, from its kind, and so does the result of a submission
// that could not be graded at all.
func TestProgramOfALoadedLesson(t *testing.T) {
	want := []string{1: "server", 2: "server", 3: "client"}
	for n := 1; n < len(want); n++ {
		l, err := kinds.LoadLesson(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := class.Ungradable(l, grading.OutcomeBuildFailed, "the build failed", "")
		if got := [2]string{grading.ProgramOf(l), res.Program}; got != [2]string{want[n], want[n]} {
			t.Errorf("lesson %d: the lesson's program and an ungradable result's are %q, want %q both", n, got, want[n])
		}
	}
}
