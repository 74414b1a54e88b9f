package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/timeline"
)

// Caps of the Markdown report. GitHub drops a job summary over 1 MiB, so the
// whole report stays under markdownLimit; each part has its own cap too.
const (
	markdownLimit      = 900 << 10
	mdMessageMax       = 2000      // a message paragraph, in bytes
	mdSideMax          = 1000      // an expected or actual cell, in bytes
	mdTitleMax         = 200       // a title cell, in runes
	mdTranscriptMax    = 64 << 10  // one scenario's transcript block, in bytes
	mdDiagramEvents    = 120       // events drawn per sequence diagram
	mdDiagramTextRunes = 100       // text of one arrow or note, in runes
	mdScenariosMax     = 20        // scenarios shown
	mdSectionReserve   = 120 << 10 // room kept for one more scenario section
)

// writeMarkdown writes a report a student can read in a browser or a job
// summary: the score, a table of checks, each check that did not pass with
// its message and its expected answer beside the actual one, then per
// scenario the transcript as a fenced code block and a Mermaid
// sequenceDiagram between Grader and Server (chunks in, answers out, stderr
// lines as notes, the close of stdin and the exit, and a note with expected
// beside actual for a failed check, placed after the answer it quotes),
// and the orders of answers the scenario asserts, kept or broken.
//
// Student text is neutralised for each context: HTML characters become
// entities and Markdown syntax is escaped in running text and table cells;
// a code block's fence is longer than any backtick run inside it; Mermaid
// text uses Mermaid's entity codes. Long parts are cut with a marker.
func writeMarkdown(w io.Writer, r *grading.Result) error {
	var b strings.Builder
	t := count(r)
	mdHeader(&b, r, t)
	mdCheckTable(&b, r)
	// When nothing could be graded every check is skipped for the same
	// reason, given above; the table says it.
	if t.fail > 0 || (r.Gradable && t.skip > 0) {
		mdNotPassed(&b, r)
	}
	mdTranscripts(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// mdHeader writes the title with the score (or why nothing could be
// graded), the sweep's cuts, the flaky flag and what was graded.
func mdHeader(b *strings.Builder, r *grading.Result, t verdictCounts) {
	if r.Gradable {
		fmt.Fprintf(b, "# Lesson %d: %d/%d points\n\n", r.Lesson, r.Score, r.MaxScore)
		fmt.Fprintf(b, "%s. Outcome: **%s**", t, mdInline(outcomeLine(r)))
		if outcomeDetailAdds(r) {
			b.WriteString(": " + mdInline(clip(r.Outcome.Detail, mdMessageMax)))
		}
		b.WriteString("\n\n")
	} else {
		fmt.Fprintf(b, "# Lesson %d: could not grade\n\n", r.Lesson)
		problem := problemLines(r)
		fmt.Fprintf(b, "**Could not grade (%s):** %s\n\n", mdInline(string(r.Outcome.Kind)), mdInline(clip(problem[0], mdMessageMax)))
		for _, p := range problem[1:] {
			fmt.Fprintf(b, "Detail: %s\n\n", mdInline(clip(p, mdMessageMax)))
		}
		b.WriteString("This is not a fail: the grader could not judge the server's answers at all.\n\n")
	}
	if r.Cuts != nil {
		fmt.Fprintf(b, "Chunk sweep cuts: %d.\n\n", *r.Cuts)
	}
	if r.Flaky {
		b.WriteString("**Flaky:** the run timed out, was run again, and the two runs disagreed.\n\n")
	}
	if s := submissionLine(r.Submission, mdInline); s != "" {
		b.WriteString("Graded: " + s + ".\n\n")
	}
}

// mdCheckTable writes one row per check: verdict, id, points and title.
func mdCheckTable(b *strings.Builder, r *grading.Result) {
	if len(r.Checks) == 0 {
		return
	}
	b.WriteString("| Result | Check | Points | What it asks |\n| --- | --- | --- | --- |\n")
	for _, c := range r.Checks {
		fmt.Fprintf(b, "| %s | %s | %d/%d | %s |\n", mdStatus(c.Status), mdInline(c.ID), c.Points, c.MaxPoints, mdInline(clipRunes(c.Title, mdTitleMax)))
	}
	b.WriteString("\n")
}

// mdNotPassed writes a section per check that did not pass: its message
// and its expected answer beside the actual one.
func mdNotPassed(b *strings.Builder, r *grading.Result) {
	b.WriteString("## Checks that did not pass\n\n")
	for _, c := range r.Checks {
		if c.Status == grading.StatusPass {
			continue
		}
		fmt.Fprintf(b, "### %s %s\n\n", mdStatus(c.Status), mdInline(displayName(c)))
		msg := c.Message
		if msg == "" && c.Status != grading.StatusFail {
			msg = "This check could not be judged."
		}
		if msg != "" {
			b.WriteString(mdInline(clip(msg, mdMessageMax)) + "\n\n")
		}
		if c.Expected != "" || c.Actual != "" {
			b.WriteString("| Expected | Actual |\n| --- | --- |\n")
			fmt.Fprintf(b, "| %s | %s |\n\n", mdCell(clip(c.Expected, mdSideMax)), mdCell(clip(c.Actual, mdSideMax)))
		}
	}
}

// mdTranscripts writes each scenario's transcript as a code block and a
// sequence diagram, up to mdScenariosMax scenarios and within markdownLimit.
func mdTranscripts(b *strings.Builder, r *grading.Result) {
	scenarios := byScenario(r.Transcript)
	if len(scenarios) > 0 {
		b.WriteString("## Transcript\n\n")
		b.WriteString("`->` a chunk the grader wrote to stdin (a `|` between spaces marks a newline inside it), `<-` a line the server wrote to stdout, `stderr` a line it wrote to stderr.\n\n")
	}
	notes := failureNotes(r, scenarios)
	for i, sc := range scenarios {
		if i == mdScenariosMax || b.Len() > markdownLimit-mdSectionReserve {
			fmt.Fprintf(b, "… [cut: %d more scenarios not shown, to keep the report under GitHub's 1 MiB limit for a job summary]\n\n", len(scenarios)-i)
			break
		}
		fmt.Fprintf(b, "### Scenario %s\n\n", mdInline(sc.Name))
		code := transcriptBlock(sc, mdTranscriptMax, mdCodeText)
		f := fence(code)
		fmt.Fprintf(b, "%stext\n%s%s\n\n", f, code, f)
		b.WriteString("```mermaid\n" + sequenceDiagram(sc, notes[i]) + "```\n\n")
		mdOrders(b, r.Orders, sc)
	}
}

// mdOrders lists the orders of answers the scenario asserts, as the HTML
// page does under its timeline: kept or broken, and the times.
func mdOrders(b *strings.Builder, orders []grading.AssertedOrder, sc scenario) {
	var items []string
	for _, o := range orders {
		if o.Scenario != sc.Name {
			continue
		}
		kept, text := timeline.Asserted(timeline.Order{Scenario: o.Scenario, First: o.First, Then: o.Then, Checks: o.Checks}, sc.Events)
		mark := "❌"
		if kept {
			mark = "✅"
		}
		items = append(items, "- "+mark+" "+mdInline(text))
	}
	if len(items) > 0 {
		b.WriteString("**Order the lesson asserts:**\n\n" + strings.Join(items, "\n") + "\n\n")
	}
}

// mdStatus is a check's verdict with a symbol, for tables and headings:
// the word of statusWord after the symbol of that word.
func mdStatus(s grading.Status) string {
	word := statusWord(s)
	symbol := map[string]string{"PASS": "✅", "FAIL": "❌", "SKIP": "⏭️"}[word]
	return symbol + " " + word
}

// failureNote is a note of a failed check in a sequence diagram, drawn after
// event number after of its scenario (-1: at the end).
type failureNote struct {
	after int
	text  string
}

// failureNotes places each failed check that has an expected or actual
// answer in a scenario: after the first answer event that matches the first
// line of its actual answer, or else at the end of the last scenario. A check names no
// scenario, so the match is the best place there is.
func failureNotes(r *grading.Result, scenarios []scenario) [][]failureNote {
	notes := make([][]failureNote, len(scenarios))
	if len(scenarios) == 0 {
		return notes
	}
	for _, c := range r.Checks {
		if c.Status != grading.StatusFail || (c.Expected == "" && c.Actual == "") {
			continue
		}
		text := fmt.Sprintf("FAIL %s: expected %s, actual %s",
			clipRunes(oneLine(c.ID, " "), mdDiagramTextRunes),
			clipRunes(oneLine(orNothing(c.Expected), " "), mdDiagramTextRunes),
			clipRunes(oneLine(orNothing(c.Actual), " "), mdDiagramTextRunes))
		si, ei := len(scenarios)-1, -1
		first, _, _ := strings.Cut(c.Actual, "\n")
		if actual := strings.TrimSpace(first); actual != "" {
		search:
			for i, sc := range scenarios {
				for j, e := range sc.Events {
					if e.TranscriptKind() != event.Answer {
						continue
					}
					text := strings.TrimSpace(e.Text)
					if text == actual || (len(actual) >= 8 && strings.Contains(text, actual)) {
						si, ei = i, j
						break search
					}
				}
			}
		}
		notes[si] = append(notes[si], failureNote{after: ei, text: text})
	}
	return notes
}

// orNothing shows an empty answer as "(nothing)".
func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}

// sequenceDiagram draws one scenario as a Mermaid sequenceDiagram.
func sequenceDiagram(sc scenario, notes []failureNote) string {
	var b strings.Builder
	b.WriteString("sequenceDiagram\n    participant Grader\n    participant Server\n")
	label := func(s string) string {
		if s == "" {
			s = "(empty)"
		}
		return mermaidText(clipRunes(strings.TrimRight(s, " "), mdDiagramTextRunes))
	}
	writeNotes := func(after int) {
		for _, n := range notes {
			if n.after == after {
				b.WriteString("    Note over Grader,Server: " + mermaidText(n.text) + "\n")
			}
		}
	}
	shown := min(len(sc.Events), mdDiagramEvents)
	for j, e := range sc.Events[:shown] {
		// What the rig saw is drawn in the words its transcript shows
		// (see event.Event.TranscriptKind), as a note of the grader's.
		text := oneLine(e.TranscriptText(), " | ")
		kind := e.TranscriptKind()
		switch kind {
		case event.Send:
			b.WriteString("    Grader->>Server: " + label(text) + "\n")
		case event.Answer:
			b.WriteString("    Server-->>Grader: " + label(text) + "\n")
		case event.Stderr:
			b.WriteString("    Note right of Server: " + label("stderr "+text) + "\n")
		case event.Close:
			b.WriteString("    Grader-xServer: " + label(strings.TrimSpace("close stdin "+text)) + "\n")
		case event.Exit:
			b.WriteString("    Note over Server: " + label(strings.TrimSpace("exit "+text)) + "\n")
		default:
			b.WriteString("    Note over Grader: " + label(strings.TrimSpace(string(kind)+" "+text)) + "\n")
		}
		writeNotes(j)
	}
	if shown < len(sc.Events) {
		fmt.Fprintf(&b, "    Note over Grader,Server: %s\n", mermaidText(fmt.Sprintf("… %d more events not drawn (see the transcript)", len(sc.Events)-shown)))
		for _, n := range notes {
			if n.after >= shown {
				b.WriteString("    Note over Grader,Server: " + mermaidText(n.text) + "\n")
			}
		}
	}
	writeNotes(-1)
	return b.String()
}
