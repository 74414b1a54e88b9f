package class_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
)

// A class in which no student could be graded says so in the two tables
// that would be empty, instead of writing a table with no rows.
func TestSummaryWithNoneGraded(t *testing.T) {
	c := sampleClass(t)
	c.Students = []*class.Student{
		{Name: "ann", Result: &grading.Result{Lesson: 1, Outcome: grading.Outcome{Kind: grading.OutcomeBuildFailed}}},
	}
	var b bytes.Buffer
	if err := c.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	want := "\n## Score distribution\n\nNo student could be graded.\n" +
		"\n## Checks most often failed\n\nNo graded student failed any check.\n" +
		"\n## Outcomes\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary.md:\n%s\nwant it to hold:\n%s", b.String(), want)
	}
}
