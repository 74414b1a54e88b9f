package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcplab/mcplab/grading"
)

// ANSI colours of the text format.
const (
	ansiGreen  = "\x1b[32m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

// textFieldMax caps each message, expected and actual shown in the terminal.
const textFieldMax = 4000

// writeText writes the terminal report:
//
//	Lesson 1: score 7/10. Outcome: wrong-answers (some answers were wrong or missing: 1 check failed)
//	PASS framing.split-chunks  (2/2)  answers a request split over chunks
//	FAIL errors.parse-error    (0/2)  answers a line that is not JSON
//	      message, indented
//	      Expected: …
//	      Actual:   …
//	4 passed, 1 failed, 1 skipped: 7/10 points.
//
// and, when the run was not gradable, the problem on a last line.
func writeText(w io.Writer, r *grading.Result, color bool) error {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	ew := &errWriter{w: w}
	if r.Gradable {
		ew.printf("%s\n", paint(ansiBold, fmt.Sprintf("Lesson %d: score %d/%d. Outcome: %s", r.Lesson, r.Score, r.MaxScore, outcomeLine(r))))
	} else {
		ew.printf("%s\n", paint(ansiBold, fmt.Sprintf("Lesson %d: not graded. Outcome: %s", r.Lesson, outcomeLine(r))))
	}

	idWidth, ptsWidth := 0, 0
	for _, c := range r.Checks {
		idWidth = max(idWidth, utf8.RuneCountInString(c.ID))
		ptsWidth = max(ptsWidth, len(points(c)))
	}
	for _, c := range r.Checks {
		word := statusWord(c.Status)
		switch c.Status {
		case grading.StatusPass:
			word = paint(ansiGreen, word)
		case grading.StatusFail:
			word = paint(ansiRed, word)
		default:
			word = paint(ansiYellow, word)
		}
		line := fmt.Sprintf("%s %s  %s  %s", word, pad(oneLine(c.ID, " "), idWidth), pad(points(c), ptsWidth), oneLine(c.Title, " "))
		ew.printf("%s\n", strings.TrimRight(line, " "))
		if c.Status == grading.StatusPass {
			continue
		}
		if c.Message != "" {
			ew.printf("%s\n", indent(clip(c.Message, textFieldMax), "      ", "      "))
		}
		if c.Expected != "" {
			ew.printf("%s\n", indent(clip(c.Expected, textFieldMax), "      Expected: ", "                "))
		}
		if c.Actual != "" {
			ew.printf("%s\n", indent(clip(c.Actual, textFieldMax), "      Actual:   ", "                "))
		}
	}

	t := count(r)
	summary := fmt.Sprintf("%s: %d/%d points.", t, r.Score, r.MaxScore)
	switch {
	case !r.Gradable:
		summary = fmt.Sprintf("%s: not graded.", t)
		ew.printf("%s\n", summary)
	case t.fail > 0:
		ew.printf("%s\n", paint(ansiRed, summary))
	case t.skip > 0:
		ew.printf("%s\n", paint(ansiYellow, summary))
	default:
		ew.printf("%s\n", paint(ansiGreen, summary))
	}
	if r.Cuts != nil {
		ew.printf("Chunk sweep cuts: %d (the same number cuts the input the same way again, with --cuts).\n", *r.Cuts)
	}
	if r.Flaky {
		ew.printf("%s\n", paint(ansiYellow, "Flaky: the run timed out, was run again, and the two runs disagreed."))
	}
	if note := r.Confirmed.Summary(); note != "" {
		ew.printf("%s\n", paint(ansiYellow, indent(clip(note, textFieldMax), "Confirmed: ", "           ")))
	}
	if r.Gradable {
		if outcomeDetailAdds(r) {
			ew.printf("%s\n", indent(clip(r.Outcome.Detail, textFieldMax), "Why: ", "     "))
		}
	} else {
		problem, more := problemParts(r)
		ew.printf("%s\n", indent(clip(problem, textFieldMax), paint(ansiYellow, "Could not grade:")+" ", "                 "))
		if more != "" {
			ew.printf("%s\n", indent(clip(more, textFieldMax), "Detail: ", "        "))
		}
	}
	return ew.err
}

// points is "(p/m)" for a check.
func points(c grading.CheckResult) string {
	return fmt.Sprintf("(%d/%d)", c.Points, c.MaxPoints)
}

// pad pads s with spaces to width runes.
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// indent puts first before the first line of s and rest before every other
// line.
func indent(s, first, rest string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

// errWriter keeps the first write error so a report can be written without
// checking every line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
