package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcplab/mcplab/grading"
)

// gradescopeLimit caps results.json. Gradescope documents no limit, but a
// huge file makes its pages slow, so the output is cut like PrairieLearn's.
const gradescopeLimit = 1 << 20

// gsResults is Gradescope's results.json.
type gsResults struct {
	// Score is nil, and so left out, for a run that could not be graded:
	// Gradescope takes a present score as the grade (it overrides the sum
	// of the tests), and without one and without tests it reports the run
	// as an autograder failure, not as a zero.
	Score            *int     `json:"score,omitempty"`
	ExecutionTime    int64    `json:"execution_time"`
	Output           string   `json:"output"`
	OutputFormat     string   `json:"output_format"`
	TestOutputFormat string   `json:"test_output_format"`
	Tests            []gsTest `json:"tests"`
}

// gsTest is one entry of tests in Gradescope's results.json.
type gsTest struct {
	Score      int    `json:"score"`
	MaxScore   int    `json:"max_score"`
	Status     string `json:"status"`
	Name       string `json:"name"`
	Number     string `json:"number"`
	Output     string `json:"output"`
	Visibility string `json:"visibility"`
}

// writeGradescope writes Gradescope's results.json: score, execution_time
// in whole seconds (rounded up), output (the summary, then the transcript) in text format, and
// one test per check, numbered from 1 in check order, named "id: title",
// status passed or failed (a skipped check is failed, with 0 points and
// output saying it was skipped), every test visible.
//
// Gradescope has no field for "could not grade". A run that could not be
// graded gets no score field and no tests (so Gradescope records no grade
// and shows the run as an autograder failure, not as a zero), and an output
// that starts with the problem; the caller also exits non-zero.
func writeGradescope(w io.Writer, r *grading.Result) error {
	var head strings.Builder
	if r.Gradable {
		head.WriteString(summaryLine(r) + "\n")
	} else {
		fmt.Fprintf(&head, "Lesson %d could not be graded (%s), so no test ran and no score is given:\n", r.Lesson, r.Outcome.Kind)
		for _, l := range problemLines(r) {
			head.WriteString("  " + oneLine(l, "\n  ") + "\n")
		}
	}
	if r.Cuts != nil {
		fmt.Fprintf(&head, "Chunk sweep cuts: %d\n", *r.Cuts)
	}
	if r.Flaky {
		head.WriteString("Flaky: the run timed out, was run again, and the two runs disagreed.\n")
	}
	head.WriteString("\nTranscript:\n")
	return writeFitJSON(w, gradescopeLimit, transcriptText(r, gradescopeLimit), func(transcript string, fieldCap int) any {
		res := gsResults{
			ExecutionTime:    (max(r.DurationMS, 0) + 999) / 1000,
			Output:           head.String() + transcript,
			OutputFormat:     "text",
			TestOutputFormat: "text",
			Tests:            []gsTest{},
		}
		if !r.Gradable {
			return res
		}
		score := r.Score
		res.Score = &score
		for i, c := range r.Checks {
			t := gsTest{
				Score:      c.Points,
				MaxScore:   c.MaxPoints,
				Status:     "failed",
				Name:       displayName(c),
				Number:     strconv.Itoa(i + 1),
				Visibility: "visible",
			}
			switch c.Status {
			case grading.StatusPass:
				t.Status = "passed"
			case grading.StatusFail:
				t.Output = clip(details(c), fieldCap)
			default:
				t.Score = 0
				t.Output = clip(skipMessage(c), fieldCap)
			}
			res.Tests = append(res.Tests, t)
		}
		return res
	})
}
