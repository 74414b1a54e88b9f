package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/textesc"
	"github.com/mcplab/mcplab/lab/timeline"
)

// This file holds every neutraliser the formats share. Student-derived text
// (a transcript line, an actual answer, a message that quotes one) passes
// through clean once, when a report starts (see sanitized); each format then
// applies the escaping of its own context on top: Markdown, Mermaid, XML,
// GitHub workflow commands.

// clean returns s with everything a terminal, a log parser or an XML reader
// could act on shown as a visible escape (see textesc.Visible). Newline and
// tab are kept.
func clean(s string) string { return textesc.Visible(s) }

// hidden reports whether r is an invisible character that can reorder, hide
// or split the text around it, or is not allowed in XML 1.0.
func hidden(r rune) bool { return textesc.Hidden(r) }

// sanitized returns a deep copy of r in which every string has passed
// through clean, and is within the result's caps: a check's message,
// expected and actual cut at grading.FieldMax, the transcript bounded by
// grading.BoundTranscript (a result read back from a file may not be).
// Every format renders this copy, so no format can forget a field and no
// record is larger than a few MiB.
func sanitized(r *grading.Result) *grading.Result {
	c := *r
	c.Problem = clip(clean(r.Problem), grading.FieldMax)
	c.Outcome = grading.Outcome{Kind: grading.OutcomeKind(clean(string(r.Outcome.Kind))), Detail: clip(clean(r.Outcome.Detail), grading.FieldMax)}
	if r.Checks != nil {
		c.Checks = make([]grading.CheckResult, len(r.Checks))
		for i, k := range r.Checks {
			c.Checks[i] = grading.CheckResult{
				ID:        clean(k.ID),
				Title:     clean(k.Title),
				Status:    grading.Status(clean(string(k.Status))),
				Points:    k.Points,
				MaxPoints: k.MaxPoints,
				Message:   clip(clean(k.Message), grading.FieldMax),
				Expected:  clip(clean(k.Expected), grading.FieldMax),
				Actual:    clip(clean(k.Actual), grading.FieldMax),
				Rule:      clean(k.Rule),
				Fix:       clean(k.Fix),
				Scenarios: cleanAll(k.Scenarios),
				Line:      clip(clean(k.Line), grading.FieldMax),
			}
		}
	}
	// Bounded before it is cleaned (so a huge transcript is never copied
	// whole), and again after (escapes make text longer).
	c.Transcript = timeline.Clean(r.Transcript, grading.BoundTranscript)
	if r.Cuts != nil {
		seed := *r.Cuts
		c.Cuts = &seed
	}
	if r.Submission != nil {
		c.Submission = &grading.Submission{
			Name:   clean(r.Submission.Name),
			Commit: clean(r.Submission.Commit),
			Hash:   clean(r.Submission.Hash),
		}
	}
	return &c
}

// cleanAll is a copy of ss with every string cleaned (see clean); nil for
// none.
func cleanAll(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clean(s)
	}
	return out
}

// clip cuts s to at most max bytes, on a rune boundary, and says how much was
// left out: "… [cut: 1234 more bytes not shown]". The marker comes on top of
// max. A max of zero or less leaves only the marker.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < 0 {
		max = 0
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [cut: %d more bytes not shown]", len(s)-cut)
}

// clipRunes cuts s to at most max runes, marker included, ending it with
// "…". It is for short one-line labels.
func clipRunes(s string, max int) string { return clipRunesWith(s, max, "…") }

// clipRunesWith cuts s to at most max runes, marker included, ending it
// with marker. A max too small for the marker leaves nothing.
func clipRunesWith(s string, max int, marker string) string {
	return timeline.ClipRunes(s, max, marker)
}

// oneLine puts s on one line: every newline becomes sep and tabs become
// spaces.
func oneLine(s, sep string) string { return timeline.OneLine(s, sep) }

// mdInline escapes cleaned text for Markdown running text or a table cell:
// newlines become spaces (or <br> in a cell that keeps lines, see mdCell),
// HTML's <, > and & become entities, the characters that open Markdown
// constructs (\ ` * _ [ ] | ~ #) get a backslash, a line-start marker that
// would make a list, heading or rule is escaped, and a bare URL or www. is
// broken so that it is not turned into a link.
func mdInline(s string) string {
	return mdEscape(oneLine(s, " "), " ")
}

// mdCell is mdInline for a table cell that shows several lines, such as an
// expected or actual answer: each line break becomes <br>.
func mdCell(s string) string {
	return mdEscape(s, "<br>")
}

func mdEscape(s, nl string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	lineStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if lineStart {
			// Runs of digits then . or ) start an ordered list; - + = at the
			// start make lists or setext underlines.
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j > i && j < len(s) && (s[j] == '.' || s[j] == ')') {
				b.WriteString(s[i:j])
				b.WriteByte('\\')
				b.WriteByte(s[j])
				i = j
				lineStart = false
				continue
			}
			if c == '-' || c == '+' || c == '=' {
				b.WriteByte('\\')
				b.WriteByte(c)
				lineStart = false
				continue
			}
		}
		lineStart = false
		switch c {
		case '\n':
			b.WriteString(nl)
			lineStart = nl != "<br>"
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '|', '~', '#':
			b.WriteByte('\\')
			b.WriteByte(c)
		case ':':
			if strings.HasPrefix(s[i:], "://") {
				b.WriteString("&#58;")
			} else {
				b.WriteByte(c)
			}
		case '@':
			// GitHub's Markdown links a bare a@b.example as mailto:.
			b.WriteString("&#64;")
		case '.':
			if i >= 3 && strings.EqualFold(s[i-3:i], "www") {
				b.WriteString("&#46;")
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// mdCodeText prepares cleaned text for a fenced code block. Code blocks show
// HTML as text, but a report is also read raw and pasted elsewhere, so <, >
// and & are still written the way JSON writes them safely: \u003c, \u003e
// and \u0026.
func mdCodeText(s string) string {
	r := strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`)
	return r.Replace(s)
}

// fence returns a backtick fence longer than any backtick run in content, so
// that nothing inside can close the block early.
func fence(content string) string {
	longest, run := 0, 0
	for i := 0; i < len(content); i++ {
		if content[i] == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	n := 3
	if longest >= n {
		n = longest + 1
	}
	return strings.Repeat("`", n)
}

// mermaidText escapes cleaned text for a Mermaid message or note: one line,
// and every character Mermaid reads as syntax, markup or an entity start
// written as a Mermaid entity code (# as #35;, ; as #59;, : as #58;, quotes,
// < > &, % and backtick).
func mermaidText(s string) string {
	s = oneLine(s, " ⏎ ")
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch r {
		case '#':
			b.WriteString("#35;")
		case ';':
			b.WriteString("#59;")
		case ':':
			b.WriteString("#58;")
		case '"':
			b.WriteString("#quot;")
		case '\'':
			b.WriteString("#39;")
		case '<':
			b.WriteString("#lt;")
		case '>':
			b.WriteString("#gt;")
		case '&':
			b.WriteString("#amp;")
		case '%':
			b.WriteString("#37;")
		case '`':
			b.WriteString("#96;")
		case '{':
			b.WriteString("#123;")
		case '}':
			b.WriteString("#125;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ghData escapes the value of a GitHub workflow command (after the second
// "::"), as the runner unescapes it: % as %25, CR as %0D, LF as %0A.
func ghData(s string) string {
	r := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	return r.Replace(s)
}

// ghProperty escapes a property value of a workflow command (title=…): as
// ghData, and also : as %3A and , as %2C.
func ghProperty(s string) string {
	r := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	return r.Replace(s)
}

// ghLogLine neutralises one line of cleaned text printed to a GitHub Actions
// log. The runner trims leading white space and runs a line that then starts
// with "::", and it runs the legacy form "##[" anywhere in a line. A line
// that would start with "::" gets a visible "| " in front; "##[" becomes
// "##\[". The line must not contain a newline or a carriage return (clean
// has already shown every CR as \r).
func ghLogLine(line string) string {
	line = strings.ReplaceAll(line, "##[", `##\[`)
	if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
		return "| " + line
	}
	return line
}
