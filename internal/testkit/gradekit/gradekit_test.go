package gradekit

import "testing"

// Lesson 1's checks are worth 21 points, as its grades.csv rows say
// (ann,21,21,graded in cmd/lab's class tests).
func TestFullMarksOfLesson1(t *testing.T) {
	if got := FullMarks(t, 1); got != 21 {
		t.Errorf("FullMarks(1) = %d, want 21", got)
	}
}
