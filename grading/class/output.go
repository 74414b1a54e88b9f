package class

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/lab/textesc"
)

// WriteCSV writes the gradebook: one row per student, sorted by name, with
// the columns student, score, max_score, status, failed (the failed check
// ids, separated by ";") and flags (what the teacher should look at,
// separated by ";", see Student.Flags). Status is graded, ungradable, or,
// when the grading was stopped before the student's turn came, not-graded.
// Only a graded student has a score, so no spreadsheet takes "could not
// grade" for zero.
//
// Every cell is safe to open in a spreadsheet (see textesc.CSVCell): a
// student's folder name such as =HYPERLINK(...) stays text, and control
// characters are shown as escapes.
func (c *Class) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	write := func(row []string) error {
		for i := range row {
			row[i] = textesc.CSVCell(row[i])
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("writing grades.csv: %w", err)
		}
		return nil
	}
	if err := write([]string{"student", "score", "max_score", "status", "failed", "flags"}); err != nil {
		return err
	}
	rows := map[string][]string{}
	for _, s := range c.Students {
		r := s.Result
		row := []string{s.Name, "", strconv.Itoa(r.MaxScore), "ungradable", "", strings.Join(s.Flags, ";")}
		if r.Gradable {
			row[1], row[3], row[4] = strconv.Itoa(r.Score), "graded", strings.Join(r.Failed(), ";")
		}
		rows[s.Name] = row
	}
	for _, n := range c.NotGraded {
		rows[n] = []string{n, "", strconv.Itoa(c.MaxScore), "not-graded", "", "grading-stopped"}
	}
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := write(rows[n]); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing grades.csv: %w", err)
	}
	return nil
}

func (c *Class) sorted() []*Student {
	s := append([]*Student(nil), c.Students...)
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	return s
}

// FileName is the name of a student's report in a format, inside the
// student's own folder of the output (see report.Format's File), or an
// error for a format there is not.
func FileName(format string) (string, error) {
	f, err := report.Lookup(format)
	if err != nil {
		return "", err
	}
	return f.File, nil
}

// WriteReports writes each student's result in every format asked for, as
// students/NAME/FILE in out, FILE the format's (see report.Format).
func (c *Class) WriteReports(out *Out, formats []string) error {
	for _, s := range c.Students {
		if err := out.WriteStudent(s, formats); err != nil {
			return err
		}
	}
	return nil
}

// WriteGradebook writes grades.csv, summary.md and the class page
// (index.html, see WriteIndex) into out.
func (c *Class) WriteGradebook(out *Out) error {
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{{"grades.csv", c.WriteCSV}, {"summary.md", c.WriteSummary}} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return err
		}
		if err := out.WriteFile(f.name, b.Bytes()); err != nil {
			return err
		}
	}
	return c.WriteIndex(out)
}

// Summary is what a teacher wants to know of a class at a glance.
type Summary struct {
	Students, Graded, Ungradable, Passed int
	// Distribution counts the graded students by score, highest first.
	Distribution []ScoreCount
	// Failed counts, for each check that failed anywhere, how many graded
	// students failed it: most often failed first.
	Failed []CheckCount
	// Outcomes counts the students by outcome kind, most frequent first.
	Outcomes []OutcomeCount
	// Flaky names the students whose result is flaky.
	Flaky []string
}

// ScoreCount is one bar of the score distribution.
type ScoreCount struct{ Score, Students int }

// CheckCount is how many students failed a check.
type CheckCount struct {
	ID, Title string
	Students  int
}

// OutcomeCount is how many students' runs ended one way.
type OutcomeCount struct {
	Kind     grading.OutcomeKind
	Students int
}

// Summary tallies the class.
func (c *Class) Summary() Summary {
	s := Summary{Students: len(c.Students)}
	scores := map[int]int{}
	failed := map[string]int{}
	outcomes := map[grading.OutcomeKind]int{}
	for _, st := range c.sorted() {
		r := st.Result
		outcomes[r.Outcome.Kind]++
		if r.Flaky {
			s.Flaky = append(s.Flaky, st.Name)
		}
		if !r.Gradable {
			s.Ungradable++
			continue
		}
		s.Graded++
		scores[r.Score]++
		if len(r.Failed()) == 0 {
			s.Passed++
		}
		for _, id := range r.Failed() {
			failed[id]++
		}
	}
	for score, n := range scores {
		s.Distribution = append(s.Distribution, ScoreCount{score, n})
	}
	sort.Slice(s.Distribution, func(i, j int) bool { return s.Distribution[i].Score > s.Distribution[j].Score })
	for _, ch := range c.Checks {
		if n := failed[ch.ID]; n > 0 {
			s.Failed = append(s.Failed, CheckCount{ch.ID, ch.Title, n})
		}
	}
	sort.SliceStable(s.Failed, func(i, j int) bool { return s.Failed[i].Students > s.Failed[j].Students })
	for k, n := range outcomes {
		s.Outcomes = append(s.Outcomes, OutcomeCount{k, n})
	}
	sort.Slice(s.Outcomes, func(i, j int) bool {
		if s.Outcomes[i].Students != s.Outcomes[j].Students {
			return s.Outcomes[i].Students > s.Outcomes[j].Students
		}
		return s.Outcomes[i].Kind < s.Outcomes[j].Kind
	})
	return s
}

// WriteSummary writes the class summary as Markdown: counts, how the
// deadlines were set, the score distribution, the checks most often failed,
// the outcomes, and one line per student.
func (c *Class) WriteSummary(w io.Writer) error {
	s := c.Summary()
	var b strings.Builder
	fmt.Fprintf(&b, "# Lesson %d: class summary\n\n", c.Lesson)
	if c.Incomplete {
		fmt.Fprintf(&b, "**Incomplete:** the grading was stopped (%s) before %s graded: %s. "+
			"They are in grades.csv with the status not-graded; grade them again.\n\n",
			mdText(c.StoppedBy), grading.CountOf(len(c.NotGraded), "submission was", "submissions were"), mdList(c.NotGraded))
	}
	fmt.Fprintf(&b, "%s graded in %s with the %s sandbox, %d at a time.\n\n",
		grading.CountOf(s.Students, "submission", "submissions"), c.Duration.Round(100*time.Millisecond), c.Sandbox, c.Jobs)
	if cal := c.Calibration; cal != nil {
		capped := ""
		if cal.Capped {
			capped = fmt.Sprintf(", at most %d: the machine was busy with more than this grading, and a deadline missed at this scale is graded again at four times it before it costs a point", MaxCalibratedScale)
		}
		fmt.Fprintf(&b, "Deadlines × %.2f, calibrated: the reference server took %s here against %s designed (scale = max(1, %.2f × measured / designed)%s).\n\n",
			c.TimeScale, cal.Measured.Round(time.Millisecond), cal.Designed.Round(time.Millisecond), CalibrationFactor, capped)
	} else {
		fmt.Fprintf(&b, "Deadlines × %.2f, as asked.\n\n", c.TimeScale)
	}
	fmt.Fprintf(&b, "- Graded: %d (every check passed: %d)\n", s.Graded, s.Passed)
	fmt.Fprintf(&b, "- Could not grade: %d (no score: see each student's report for why)\n", s.Ungradable)
	if len(s.Flaky) > 0 {
		fmt.Fprintf(&b, "- Flaky (a run timed out and its rerun disagreed): %d: %s\n", len(s.Flaky), mdList(s.Flaky))
	}
	var flagged []string
	for _, st := range c.sorted() {
		if len(st.Flags) > 0 {
			flagged = append(flagged, fmt.Sprintf("%s (%s)", mdText(st.Name), mdText(strings.Join(st.Flags, ", "))))
		}
	}
	if len(flagged) > 0 {
		fmt.Fprintf(&b, "- Flagged for the teacher to look at (see each report's outcome): %d: %s\n", len(flagged), strings.Join(flagged, "; "))
	}
	if len(c.Ignored) > 0 {
		fmt.Fprintf(&b, "- Not submission folders, ignored: %s\n", mdList(c.Ignored))
	}

	var rows []string
	for _, d := range s.Distribution {
		rows = append(rows, fmt.Sprintf("| %d/%d | %d | %s |\n", d.Score, c.MaxScore, d.Students, strings.Repeat("█", d.Students)))
	}
	writeMDTable(&b, "Score distribution", "No student could be graded.", "| score | students | |\n|---:|---:|:---|\n", rows)
	rows = nil
	for _, f := range s.Failed {
		rows = append(rows, fmt.Sprintf("| `%s` | %d of %d | %s |\n", f.ID, f.Students, s.Graded, mdText(f.Title)))
	}
	writeMDTable(&b, "Checks most often failed", "No graded student failed any check.", "| check | students who failed it | what it asks |\n|:---|---:|:---|\n", rows)

	fmt.Fprintf(&b, "\n## Outcomes\n\n| outcome | students |\n|:---|---:|\n")
	for _, o := range s.Outcomes {
		fmt.Fprintf(&b, "| %s | %d |\n", o.Kind, o.Students)
	}

	fmt.Fprintf(&b, "\n## Students\n\n| student | score | outcome | failed checks |\n|:---|---:|:---|:---|\n")
	for _, st := range c.sorted() {
		r := st.Result
		score := "—"
		if r.Gradable {
			score = fmt.Sprintf("%d/%d", r.Score, r.MaxScore)
		}
		kind := string(r.Outcome.Kind)
		if r.Flaky {
			kind += " (flaky)"
		}
		if len(st.Flags) > 0 {
			kind += " (flagged: " + mdText(strings.Join(st.Flags, ", ")) + ")"
		}
		failed := strings.Join(r.Failed(), ", ")
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdText(st.Name), score, kind, failed)
	}
	for _, n := range c.NotGraded {
		fmt.Fprintf(&b, "| %s | — | not graded (grading stopped) |  |\n", mdText(n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdText makes a name safe in Markdown text and tables.
func mdText(s string) string { return textesc.Markdown(s) }

// mdList is names made safe in Markdown (see mdText), separated by ", ".
func mdList(names []string) string {
	safe := make([]string, len(names))
	for i, n := range names {
		safe[i] = mdText(n)
	}
	return strings.Join(safe, ", ")
}

// writeMDTable writes a section of the class summary: its heading, then
// the sentence none when there are no rows, else the table's header (its
// first two lines) and its rows.
func writeMDTable(b *strings.Builder, heading, none, header string, rows []string) {
	fmt.Fprintf(b, "\n## %s\n\n", heading)
	if len(rows) == 0 {
		fmt.Fprintf(b, "%s\n", none)
		return
	}
	b.WriteString(header)
	for _, r := range rows {
		b.WriteString(r)
	}
}
