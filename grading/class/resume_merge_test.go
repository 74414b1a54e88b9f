package class_test

import (
	"path/filepath"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
)

// writeShard writes the record of shard k of 2, holding the students
// given, and returns its folder.
func writeShard(t *testing.T, k int, checks []grading.Check, maxScore int, students ...*class.Student) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shard")
	out, err := class.CreateOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := &class.Class{Lesson: 1, MaxScore: maxScore, TimeScale: 2, Checks: checks, Students: students}
	if err := out.WriteRecord(c, "v1", class.Shard{K: k, N: 2}); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Merging shards holds each graded student's result to what the grader
// gives, as a resumed run does: a shard whose record says 999 points of 21,
// passed with a failed check, a maximum its checks are not worth, or
// checks other than the other shards' is refused, naming the folder and
// the student; shards of results the grader gives are merged.
func TestMergeForgedShardRefused(t *testing.T) {
	first := writeShard(t, 1, forgedLesson, 21, &class.Student{Name: "ann", Result: goodResult("ann")})
	good := writeShard(t, 2, forgedLesson, 21, &class.Student{Name: "ben", Result: goodResult("ben")},
		&class.Student{Name: "cleo", Result: &grading.Result{Lesson: 1, Outcome: grading.Outcome{Kind: grading.OutcomeCouldNotStart}}})
	m, err := class.Join([]string{first, good})
	if err != nil || len(m.Class.Students) != 3 {
		t.Fatalf("Join of two shards the grader wrote: %v", err)
	}

	score := goodResult("ben")
	score.Score = 999
	passed := goodResult("ben")
	passed.Outcome = grading.Outcome{Kind: grading.OutcomePassed, Detail: "Every check passed."}
	forged := writeShard(t, 2, forgedLesson, 21, &class.Student{Name: "ben", Result: score})
	lying := writeShard(t, 2, forgedLesson, 21, &class.Student{Name: "ben", Result: passed})
	inflated := writeShard(t, 2, forgedLesson, 25, &class.Student{Name: "ben", Result: goodResult("ben")})
	other := []grading.Check{{ID: "a", Points: 8}, {ID: "b", Points: 11}, {ID: "z", Points: 2}}
	elsewhere := writeShard(t, 2, other, 21, &class.Student{Name: "ben", Result: goodResult("ben")})
	for dir, want := range map[string]string{
		forged:    forged + "/class.json: student ben: the record says 999 points of 21, but its checks add up to 19: it is not a result the grader gives; grade that shard again",
		lying:     lying + "/class.json: student ben: the record says passed, but it lists a failed check: c: it is not a result the grader gives; grade that shard again",
		inflated:  first + " has a maximum score of 21 but " + inflated + " of 25: the lesson's checks differ (a --lesson-dir?)",
		elsewhere: first + " and " + elsewhere + " were graded against different checks: the lesson's checks differ (a --lesson-dir?)",
	} {
		if _, err := class.Join([]string{first, dir}); err == nil || err.Error() != want {
			t.Errorf("Join: %v,\nwant %s", err, want)
		}
	}
	// A shard alone whose maximum its checks are not worth.
	alone := writeShard(t, 1, forgedLesson, 25)
	want := alone + "/class.json says a maximum score of 25, but its lesson's checks are worth 21: it is not as the grader wrote it; grade that shard again"
	if _, err := class.Join([]string{alone, inflated}); err == nil || err.Error() != want {
		t.Errorf("Join: %v,\nwant %s", err, want)
	}
}
