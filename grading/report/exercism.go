package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// A test's output is at most 500 characters, cut with the note Exercism's
// test runner interface gives for it
// (https://exercism.org/docs/building/tooling/test-runners/interface). The
// interface leaves the messages unlimited; the lab cuts the top-level one at
// 65535 characters and keeps results.json under 500 KB all the same, so the
// file stays bounded whatever a student's program prints.
const (
	exercismLimit      = 500_000
	exercismMessageMax = 65535
	exercismOutputMax  = 500
	exercismCutNote    = "Output was truncated. Please limit to 500 chars"
)

// exResults is Exercism's results.json, version 3.
type exResults struct {
	Version int      `json:"version"`
	Status  string   `json:"status"`
	Message string   `json:"message,omitempty"`
	Tests   []exTest `json:"tests"`
}

// exTest is one entry of tests in Exercism's results.json.
type exTest struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Message  string `json:"message,omitempty"`
	Output   string `json:"output,omitempty"`
	TestCode string `json:"test_code"`
}

// writeExercism writes Exercism's results.json, version 3. Status is pass
// when every check passed, fail when some check failed or was skipped, and
// error when the run could not be graded; then message says why and every
// test has status error. Tests come in check order (Exercism shows only the
// first failure), named "id: title"; a skipped check is an error test.
// test_code says what the check asks and which rule it enforces.
//
// A test's output is what the student's code printed on its own: the
// server's stderr lines. The checks are not tied to scenarios, so the whole
// stderr log goes with the first test that did not pass (the one Exercism
// shows), cut to 500 characters with Exercism's note. task_id is left out:
// a check names no task of the lesson text.
func writeExercism(w io.Writer, r *grading.Result) error {
	res := exResults{Version: 3, Status: "pass", Tests: []exTest{}}
	if !r.Gradable {
		res.Status = "error"
		msg := fmt.Sprintf("Lesson %d could not be graded (%s), so no test ran:\n%s", r.Lesson, r.Outcome.Kind, strings.Join(problemLines(r), "\n"))
		res.Message = clipRunes(msg, exercismMessageMax)
	}
	log := exercismOutput(r)
	logGiven := false
	return writeFitJSON(w, exercismLimit, "", func(_ string, fieldCap int) any {
		res.Tests = res.Tests[:0]
		logGiven = false
		for _, c := range r.Checks {
			t := exTest{Name: displayName(c), TestCode: testCode(c)}
			switch {
			case !r.Gradable:
				t.Status = "error"
				t.Message = "This check did not run: the server could not be graded (see the message above)."
			case c.Status == grading.StatusPass:
				t.Status = "pass"
			case c.Status == grading.StatusFail:
				t.Status = "fail"
				t.Message = clip(details(c), fieldCap)
			default:
				t.Status = "error"
				t.Message = clip(skipMessage(c), fieldCap)
			}
			if t.Status != "pass" && !logGiven {
				t.Output = log
				logGiven = true
			}
			if r.Gradable && t.Status != "pass" {
				res.Status = "fail"
			}
			res.Tests = append(res.Tests, t)
		}
		return res
	})
}

// testCode says what a check asks and the rule it enforces, for Exercism's
// "Test Code" panel.
func testCode(c grading.CheckResult) string {
	s := "lab check " + c.ID
	if c.Title != "" {
		s += ": " + c.Title
	}
	if c.Rule != "" {
		s += "\nRule: " + c.Rule
	}
	return s
}

// exercismOutput is the server's stderr lines, at most 500 characters,
// ending with Exercism's note when it was cut.
func exercismOutput(r *grading.Result) string {
	var b strings.Builder
	for _, e := range r.Transcript {
		if e.Kind == event.Stderr && !e.OfRig() {
			b.WriteString(oneLine(e.Text, " ") + "\n")
		}
	}
	return clipRunesWith(b.String(), exercismOutputMax, "\n"+exercismCutNote)
}
