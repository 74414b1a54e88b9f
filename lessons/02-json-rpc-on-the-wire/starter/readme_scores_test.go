package starter_test

import (
	"slices"
	"testing"
)

// TestLessonREADMEScores checks that the scores table of the lesson's
// README.md ("Your own server") gives the same figures as the one in
// starter/README.md, which TestStartersAsShipped and TestStages
// check against the grader.
func TestLessonREADMEScores(t *testing.T) {
	lesson, err := readScores("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	starter, err := readScores("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lesson, starter) {
		t.Errorf("the lesson's README.md gives the scores %q, starter/README.md gives %q: make them agree (the starter's table is the one the grader checks)", lesson, starter)
	}
}
