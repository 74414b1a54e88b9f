package report

import (
	"bytes"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// marksOf lists the timeline marks of a page: their anchor, scenario
// number, event number and time, in document order.
type pageMark struct {
	id       string
	scenario int
	seq      int
	at       int64
	class    string
}

var markRE = regexp.MustCompile(`<g class="(mark [^"]*)" id="m-([0-9]+)-([0-9]+)" data-seq="([0-9]+)" data-at="(-?[0-9]+)"`)

func marksOf(t *testing.T, page string) []pageMark {
	t.Helper()
	var out []pageMark
	for _, m := range markRE.FindAllStringSubmatch(page, -1) {
		sc, _ := strconv.Atoi(m[2])
		seq, _ := strconv.Atoi(m[4])
		at, _ := strconv.ParseInt(m[5], 10, 64)
		out = append(out, pageMark{id: "m-" + m[2] + "-" + m[3], scenario: sc, seq: seq, at: at, class: m[1]})
	}
	return out
}

func renderHTML(t *testing.T, r *grading.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, FormatHTML, r, Options{}); err != nil {
		t.Fatalf("Write html: %v", err)
	}
	return b.String()
}

// TestHTMLHostileText: student text holding markup, a CDATA end, terminal
// escapes and a link shows as text; the page names no URL and holds one
// script element at most (none on a grade page).
func TestHTMLHostileText(t *testing.T) {
	for _, fx := range fixtures {
		page := renderHTML(t, fx.result())
		for _, bad := range []string{"<script", "]]>", "\x1b", "<b>", "http://evil", "src=", "url(", "@import"} {
			if strings.Contains(strings.ToLower(page), strings.ToLower(bad)) && !(bad == "http://evil" && strings.Contains(page, "(http://evil.example)")) {
				t.Errorf("%s: the page holds %q raw", fx.name, bad)
			}
		}
		for _, m := range regexp.MustCompile(`(?i)(href|src|action|xlink:href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
			if !strings.HasPrefix(m[2], "#") {
				t.Errorf("%s: %s=%q points outside the page", fx.name, m[1], m[2])
			}
		}
	}
	page := renderHTML(t, failing())
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "]]&gt;", `\x1b[31mred\x1b[0m`, "&lt;b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("fail: the page does not show %q as text", want)
		}
	}
}

// TestHTMLTimelineMarks: one mark per event, in the transcript's order and
// time order within each scenario, in the lane of its stream; the split
// line is bracketed and the answer to each id is joined to its line.
func TestHTMLTimelineMarks(t *testing.T) {
	for _, fx := range fixtures {
		r := fx.result()
		page := renderHTML(t, r)
		marks := marksOf(t, page)
		if len(marks) != len(r.Transcript) {
			t.Fatalf("%s: %d marks, want one per event (%d)", fx.name, len(marks), len(r.Transcript))
		}
		for i := 1; i < len(marks); i++ {
			a, b := marks[i-1], marks[i]
			if a.scenario == b.scenario && (b.seq != a.seq+1 || b.at < a.at) {
				t.Errorf("%s: mark %s (event %d at %d ms) after %s (event %d at %d ms)", fx.name, b.id, b.seq, b.at, a.id, a.seq, a.at)
			}
		}
	}
	page := renderHTML(t, passing())
	for _, want := range []string{
		"line 2 in 2 writes",
		"completes line 2, which began in event 2 (2 writes)",
		"answers line 1 (id 1), whose end was written by event 2 at 1 ms",
		`answers line 2 (id &#34;b&#34;), whose end was written by event 4 at 4 ms`,
		"answers line 1 (id null), whose end was written by event 1 at 0 ms",
		`<line class="cut-edge"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("pass: the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<path class="link ok"`); n != 3 {
		t.Errorf("pass: %d joins drawn right, want 3 (ids 1, b and null)", n)
	}
}

// TestHTMLEvidence: a failed check links to the marks of the events it
// quotes, and those marks are outlined and named in the event table; a
// deadline that ran out is drawn across the lanes.
func TestHTMLEvidence(t *testing.T) {
	page := renderHTML(t, failing())
	links := regexp.MustCompile(`<a class="evidence" href="#([^"]+)">`).FindAllStringSubmatch(page, -1)
	if len(links) != 1 || links[0][1] != "m-0-6" {
		t.Fatalf("evidence links %v, want one to m-0-6 (the answer the check quotes)", links)
	}
	for _, m := range marksOf(t, page) {
		ev := strings.Contains(m.class, "evidence")
		if ev != (m.id == "m-0-6") {
			t.Errorf("mark %s: evidence %v", m.id, ev)
		}
		if m.id == "m-0-6" && !strings.Contains(m.class, "wrong") {
			t.Errorf("mark %s: class %q, want it judged wrong", m.id, m.class)
		}
		if m.id == "m-0-8" && !strings.Contains(m.class, "deadline") {
			t.Errorf("the note of a wait that ran out: class %q, want deadline", m.class)
		}
	}
	if !strings.Contains(page, "(evidence of errors.parse)") || strings.Count(page, `<line class="deadline-line"`) != 1 {
		t.Errorf("the table does not name the evidence, or the deadline is not drawn once")
	}
	if !strings.Contains(page, "2 s quiet") {
		t.Errorf("the 2 s between the note and the exit is not folded")
	}
}

// TestHTMLChecks: every check is listed; a check that did not pass shows
// what happened, actual, expected, rule and fix, without repeating the rule
// and the fix inside the message.
func TestHTMLChecks(t *testing.T) {
	r := failing()
	r.Checks[1].Message += " Rule: " + r.Checks[1].Rule + " Fix: " + r.Checks[1].Fix
	page := renderHTML(t, r)
	for _, c := range r.Checks {
		if !strings.Contains(page, "<code>"+c.ID+"</code>") {
			t.Errorf("check %s is not on the page", c.ID)
		}
	}
	for _, want := range []string{"<dt>What happened</dt>", "<dt>Actual</dt>", "<dt>Expected</dt>", "<dt>Rule</dt><dd>JSON-RPC 2.0 §5.1: parse error</dd>", "<dt>Fix</dt>", `id="check-1"`, `href="#check-1"`, `id="check-5"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Count(page, "catch the JSON parse error and answer -32700") != 1 {
		t.Errorf("the fix is shown %d times, want once", strings.Count(page, "catch the JSON parse error and answer -32700"))
	}
}

// TestClassHTML: the class page counts, draws a bar per score and per
// failed check, escapes names, links each row to its page and nothing
// outside the results folder, and does not depend on the order of rows.
func TestClassHTML(t *testing.T) {
	p := &ClassPage{Lesson: 1, MaxScore: 4,
		Checks: []ClassCheck{{"a", "first"}, {"b", "second"}},
		Students: []ClassStudent{
			{Name: "zed", Href: "students/zed/report.html", Status: "graded", Score: 4, Outcome: "passed"},
			{Name: "<script>alert(1)</script>\x1b[2J", Href: "students/%3Cscript%3E/report.html", Status: "graded", Score: 2, Outcome: "wrong-answers", Failed: []string{"b"}},
			{Name: "amy", Href: "../../etc/passwd", Status: "graded", Score: 2, Outcome: "wrong-answers", Failed: []string{"a", "b"}, Flags: []string{"same-transcript-as-reference"}},
			{Name: "bob", Href: "javascript:alert(1)", Status: "ungradable", Outcome: "build-failed", Flaky: true},
		}}
	var a, b bytes.Buffer
	if err := WriteClassHTML(&a, p); err != nil {
		t.Fatal(err)
	}
	p.Students[0], p.Students[3] = p.Students[3], p.Students[0]
	if err := WriteClassHTML(&b, p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("the page depends on the order of the rows")
	}
	page := a.String()
	for _, want := range []string{
		"Graded: 3 (every check passed: 1)", "Could not grade: 1",
		`data-score="2" data-count="2"`, `data-score="4" data-count="1"`, `data-score="0" data-count="0"`,
		`data-check="b" data-count="2"`, `data-check="a" data-count="1"`,
		`&lt;script&gt;alert(1)&lt;/script&gt;\x1b[2J`, `href="students/zed/report.html"`, `href="students/%3Cscript%3E/report.html"`,
		"same-transcript-as-reference", "flaky",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the class page lacks %q", want)
		}
	}
	if strings.Contains(page, "etc/passwd") || strings.Contains(page, "javascript:") || strings.Contains(page, "\x1b") {
		t.Errorf("the class page links outside the results folder or holds a raw escape")
	}
	if strings.Index(page, `data-check="b"`) > strings.Index(page, `data-check="a"`) {
		t.Errorf("the check failed most is not first")
	}
	if strings.Count(page, "<script>") != 1 {
		t.Errorf("%d script elements, want the one that sorts", strings.Count(page, "<script>"))
	}
}

// TestHTMLMemory: the page of the largest result a run can keep (every
// event of the transcript, each answer as long as kept) is a few MiB, and
// rendering it allocates a bounded amount.
func TestHTMLMemory(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("<x>\x1b", 30) + `"}}`
	r := &grading.Result{Lesson: 3, Gradable: true, Score: 1, MaxScore: 14,
		Outcome: grading.Outcome{Kind: grading.OutcomeWrongAnswers},
		Checks:  []grading.CheckResult{{ID: "answers", Title: "t", Status: grading.StatusFail, MaxPoints: 1, Message: "In scenario s0, it failed", Actual: line}}}
	for i := range grading.TranscriptEventsTotalMax {
		kind := []event.Kind{event.Send, event.Answer, "to-server", "from-server"}[i%4]
		r.Transcript = append(r.Transcript, grading.Event{Scenario: "s" + strconv.Itoa(i%3), Record: event.Record{At: time.Duration(i) * time.Millisecond, Kind: kind, Text: "notes#1 " + line}})
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var b bytes.Buffer
	if err := Write(&b, FormatHTML, r, Options{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("page: %d KiB; allocated while rendering: %d MiB", b.Len()>>10, alloc>>20)
	if b.Len() > 8<<20 {
		t.Errorf("the page is %d bytes, want a few MiB at most", b.Len())
	}
	if alloc > 160<<20 {
		t.Errorf("rendering allocated %d MiB, want well under 160 MiB", alloc>>20)
	}
}
