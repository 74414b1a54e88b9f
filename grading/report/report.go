// Package report writes a grading.Result in the formats that students,
// teachers and grading platforms read: a terminal report, our own JSON,
// JUnit XML, the results files of PrairieLearn, Gradescope and Exercism,
// GitHub Classroom's workflow commands with a job summary, a Markdown
// report with sequence diagrams, and an HTML page with the exchange drawn
// as a timeline (html.go).
//
// Every format treats the text that came from a student's server (the
// transcript, an actual answer, a message quoting one) as hostile: terminal
// escape sequences, other control characters and invalid UTF-8 are shown as
// visible escapes (ESC as \x1b), and each format adds the escaping its own
// context needs (see sanitize.go).
package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/timeline"
)

// The format names Write accepts.
const (
	FormatText         = "text"
	FormatJSON         = "json"
	FormatJUnit        = "junit"
	FormatPrairieLearn = "prairielearn"
	FormatGradescope   = "gradescope"
	FormatExercism     = "exercism"
	FormatGitHub       = "github"
	FormatMarkdown     = "markdown"
	FormatHTML         = "html"
)

// Format is one report format: its name, the file it is kept in, and how
// it is written. Formats is the one table of them, so a new format is one
// new row (and the file with its writer).
type Format struct {
	// Name is what --format takes.
	Name string
	// File is the name of a student's report in this format in the
	// student's folder of a class's results (see grading/class): each is
	// named after its format, since the platforms' own names (results.json
	// for three of them) would collide.
	File string
	// Side is the name of the file the format also writes beside File in
	// that folder, from Options.Summary (github's job summary), or "".
	Side string
	// write renders a sanitized result.
	write func(w *bytes.Buffer, r *grading.Result, opt Options) error
}

// formatTable is every format, in the order a help text shows them.
func formatTable() []Format {
	return []Format{
		{Name: FormatText, File: "text.txt", write: func(w *bytes.Buffer, r *grading.Result, opt Options) error { return writeText(w, r, opt.Color) }},
		{Name: FormatJSON, File: "json.json", write: func(w *bytes.Buffer, r *grading.Result, _ Options) error { return writeJSON(w, r) }},
		{Name: FormatJUnit, File: "junit.xml", write: func(w *bytes.Buffer, r *grading.Result, _ Options) error { return writeJUnit(w, r) }},
		{Name: FormatPrairieLearn, File: "prairielearn.json", write: func(w *bytes.Buffer, r *grading.Result, _ Options) error { return writePrairieLearn(w, r) }},
		{Name: FormatGradescope, File: "gradescope.json", write: func(w *bytes.Buffer, r *grading.Result, _ Options) error { return writeGradescope(w, r) }},
		{Name: FormatExercism, File: "exercism.json", write: func(w *bytes.Buffer, r *grading.Result, _ Options) error { return writeExercism(w, r) }},
		{Name: FormatGitHub, File: "github.txt", Side: "github-summary.md", write: func(w *bytes.Buffer, r *grading.Result, opt Options) error {
			return writeGitHub(w, opt.Summary, r, opt.Rand)
		}},
		{Name: FormatMarkdown, File: "markdown.md", write: func(w *bytes.Buffer, r *grading.Result, _ Options) error { return writeMarkdown(w, r) }},
		{Name: FormatHTML, File: "report.html", write: func(w *bytes.Buffer, r *grading.Result, _ Options) error { return writeHTML(w, r) }},
	}
}

// Formats lists the format names Write accepts, in the order a help text
// shows them.
func Formats() []string {
	var names []string
	for _, f := range formatTable() {
		names = append(names, f.Name)
	}
	return names
}

// Lookup gives the format named name, or an error naming the formats
// there are: an unknown format is never taken for another.
func Lookup(name string) (Format, error) {
	for _, f := range formatTable() {
		if f.Name == name {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("report: unknown format %q (the formats are %s)", name, strings.Join(Formats(), ", "))
}

// Options tunes Write. The zero value is right for every format but github
// run inside GitHub Actions, which wants Summary.
type Options struct {
	// Color turns on ANSI colour in the text format (green PASS, red FAIL,
	// yellow SKIP). The caller decides: colour only when stdout is a
	// terminal and NO_COLOR is unset. Other formats ignore it.
	Color bool
	// Summary receives the Markdown job summary of the github format (the
	// same report the markdown format writes). Inside GitHub Actions the
	// caller opens the file named by the environment variable
	// GITHUB_STEP_SUMMARY for appending and passes it here; when Summary is
	// nil no summary is written. Other formats ignore it.
	Summary io.Writer
	// Rand is where the github format draws the random token of
	// ::stop-commands:: from. Nil means crypto/rand; tests pass a fixed
	// reader to get the same bytes each time.
	Rand io.Reader
}

// Write writes r to w in the named format (one of Formats). It renders the
// whole report before writing, so a bad format name or a result that cannot
// be rendered writes nothing. For the github format the job summary goes to
// opt.Summary.
func Write(w io.Writer, format string, r *grading.Result, opt Options) error {
	if r == nil {
		return errors.New("report: no result to write")
	}
	f, err := Lookup(format)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	err = f.write(&buf, sanitized(r), opt)
	if err != nil {
		return fmt.Errorf("report: %s: %w", format, err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: writing the %s report: %w", format, err)
	}
	return nil
}

// verdictCounts counts a result's checks by verdict; grading.Tally is
// what the judges found, check by check.
type verdictCounts struct{ pass, fail, skip int }

func count(r *grading.Result) verdictCounts {
	var t verdictCounts
	for _, c := range r.Checks {
		switch c.Status {
		case grading.StatusPass:
			t.pass++
		case grading.StatusFail:
			t.fail++
		default:
			t.skip++
		}
	}
	return t
}

func (t verdictCounts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", t.pass, t.fail, t.skip)
}

// fraction is the score as a number from 0 to 1. A result with no points to
// earn scores 1 when nothing failed.
func fraction(r *grading.Result) float64 {
	if r.MaxScore <= 0 {
		if len(r.Failed()) == 0 {
			return 1
		}
		return 0
	}
	f := float64(r.Score) / float64(r.MaxScore)
	return min(max(f, 0), 1)
}

// displayName names a check for platforms that show one name per test:
// "id: title".
func displayName(c grading.CheckResult) string {
	if c.Title == "" {
		return c.ID
	}
	return c.ID + ": " + c.Title
}

// statusWord is the verdict in capitals, as the text report shows it.
func statusWord(s grading.Status) string {
	switch s {
	case grading.StatusPass:
		return "PASS"
	case grading.StatusFail:
		return "FAIL"
	}
	return "SKIP"
}

// details is the message of a check followed by its expected and actual
// sides, as one block of text for the platforms' per-test message fields.
func details(c grading.CheckResult) string {
	var b strings.Builder
	b.WriteString(c.Message)
	if c.Expected != "" || c.Actual != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(sides(c))
	}
	return b.String()
}

// sides is "Expected: …\nActual:   …" for a check that has them, each
// line only when its side is known.
func sides(c grading.CheckResult) string {
	var lines []string
	if c.Expected != "" {
		lines = append(lines, "Expected: "+c.Expected)
	}
	if c.Actual != "" {
		lines = append(lines, "Actual:   "+c.Actual)
	}
	return strings.Join(lines, "\n")
}

// scenario is the events of one scenario of a transcript.
type scenario = timeline.Group

// byScenario groups a transcript by scenario, in the order each scenario
// first appears, keeping the order of events within each.
func byScenario(events []grading.Event) []scenario { return timeline.Groups(events) }

// eventLine writes one event on one line: its time, an arrow or a word for
// its kind, and its text. Newlines inside a chunk are shown as " | ", as
// `lab run` shows them.
func eventLine(e grading.Event) string { return eventLineWith(e, asIs) }

// submissionLine names what was graded: "submission NAME, commit C,
// sha256 H", each part only when known, with esc applied to each value;
// empty when nothing is known.
func submissionLine(s *grading.Submission, esc func(string) string) string {
	if s == nil {
		return ""
	}
	var parts []string
	for _, p := range []struct{ label, value string }{{"submission", s.Name}, {"commit", s.Commit}, {"sha256", s.Hash}} {
		if p.value != "" {
			parts = append(parts, p.label+" "+esc(p.value))
		}
	}
	return strings.Join(parts, ", ")
}

// asIs is the escape of text that needs none.
func asIs(s string) string { return s }

// transcriptBlock is a scenario's events, one a line as eventLineWith
// writes them with esc, cut before it passes max bytes with a line that
// says how many events are not shown.
func transcriptBlock(sc scenario, max int, esc func(string) string) string {
	return timeline.TranscriptBlock(sc, max, esc)
}

// eventLineWith is eventLine with esc applied to the event's own text (not
// to the arrows around it).
func eventLineWith(e grading.Event, esc func(string) string) string {
	return timeline.EventLine(e, esc)
}

// transcriptText renders the transcript, scenario by scenario, as plain
// lines, cut at maxBytes with a marker that says how much is missing.
func transcriptText(r *grading.Result, maxBytes int) string {
	var b strings.Builder
	for _, sc := range byScenario(r.Transcript) {
		fmt.Fprintf(&b, "== scenario %s ==\n", oneLine(sc.Name, " "))
		for i, e := range sc.Events {
			line := eventLine(e) + "\n"
			if b.Len()+len(line) > maxBytes {
				fmt.Fprintf(&b, "… [cut: %d more events of this scenario, and any later scenarios, not shown]\n", len(sc.Events)-i)
				return b.String()
			}
			b.WriteString(line)
		}
	}
	return b.String()
}

// summaryLine says in one line how the run went, for the message fields of
// the platform formats.
func summaryLine(r *grading.Result) string {
	if !r.Gradable {
		return fmt.Sprintf("Lesson %d could not be graded (%s): %s", r.Lesson, r.Outcome.Kind, oneLine(problemLines(r)[0], " "))
	}
	s := fmt.Sprintf("Lesson %d: %d/%d points. %s.", r.Lesson, r.Score, r.MaxScore, count(r))
	if r.Outcome.Kind != grading.OutcomePassed && r.Outcome.Detail != "" {
		s += fmt.Sprintf(" Outcome %s: %s", r.Outcome.Kind, oneLine(r.Outcome.Detail, " "))
	}
	return s
}

// problemParts says why a run could not be graded: the problem (the
// outcome's detail when there is none), and the outcome's detail again as
// more when it adds something to the problem. Either may be empty.
func problemParts(r *grading.Result) (problem, more string) {
	problem = r.Problem
	if problem == "" {
		problem = r.Outcome.Detail
	}
	if r.Outcome.Detail != "" && r.Outcome.Detail != problem {
		more = r.Outcome.Detail
	}
	return problem, more
}

// problemLines is problemParts as lines, leaving out an empty one. It is
// never empty: with neither part it names the outcome.
func problemLines(r *grading.Result) []string {
	var lines []string
	problem, more := problemParts(r)
	for _, l := range []string{problem, more} {
		if l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		lines = append(lines, fmt.Sprintf("the run ended with outcome %s", r.Outcome.Kind))
	}
	return lines
}

// skipMessage is the message of a skipped check, saying that it was skipped.
func skipMessage(c grading.CheckResult) string {
	if c.Message == "" {
		return "Skipped: this check could not be judged."
	}
	return "Skipped: " + c.Message
}
