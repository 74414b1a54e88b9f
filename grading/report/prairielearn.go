package report

import (
	"io"

	"github.com/mcplab/mcplab/grading"
)

// prairieLearnLimit is the size PrairieLearn accepts for results.json; a
// larger file is rejected as a whole, so the output is cut to fit.
const prairieLearnLimit = 1 << 20

// plResults is PrairieLearn's results.json for an external grader.
type plResults struct {
	Gradable     bool     `json:"gradable"`
	Score        *float64 `json:"score,omitempty"`
	Message      string   `json:"message"`
	Output       string   `json:"output"`
	FormatErrors []string `json:"format_errors,omitempty"`
	Tests        []plTest `json:"tests,omitempty"`
}

// plTest is one entry of tests in PrairieLearn's results.json.
type plTest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Points      int    `json:"points"`
	MaxPoints   int    `json:"max_points"`
	Message     string `json:"message"`
	Output      string `json:"output"`
}

// writePrairieLearn writes PrairieLearn's results.json. A gradable run has
// score (0 to 1), message (the summary), output (the transcript) and one test
// per check: name is the check id, description its title, message its
// message, output its expected and actual answers. A run that could not be
// graded has gradable false, the problem in message and format_errors, the
// transcript in output, and no score or tests, so PrairieLearn uses no
// attempt. The file is kept under 1 MB by cutting the output, with a visible
// marker.
func writePrairieLearn(w io.Writer, r *grading.Result) error {
	message := summaryLine(r)
	var formatErrors []string
	if !r.Gradable {
		formatErrors = problemLines(r)
	}
	return writeFitJSON(w, prairieLearnLimit, transcriptText(r, prairieLearnLimit), func(output string, fieldCap int) any {
		res := plResults{Gradable: r.Gradable, Message: message, Output: output, FormatErrors: formatErrors}
		if !r.Gradable {
			return res
		}
		score := fraction(r)
		res.Score = &score
		res.Tests = []plTest{}
		for _, c := range r.Checks {
			msg := c.Message
			if c.Status == grading.StatusSkip {
				msg = skipMessage(c)
			}
			res.Tests = append(res.Tests, plTest{
				Name:        c.ID,
				Description: c.Title,
				Points:      c.Points,
				MaxPoints:   c.MaxPoints,
				Message:     clip(msg, fieldCap),
				Output:      clip(sides(c), fieldCap),
			})
		}
		return res
	})
}
