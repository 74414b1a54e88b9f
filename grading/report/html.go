package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/timeline"
)

// The HTML report is one self-contained file, the page of timelines of
// lab/timeline with the grade on top: the CSS and the SVG pictures are
// inline, nothing is fetched (the page names no URL at all), and no script
// is needed to read it. Every picture's facts are also in a table, for a
// screen reader and for print. Student text goes through clean (see
// sanitize.go) and then html/template's contextual escaping, so a
// transcript holding <script>, ]]> or terminal escapes shows them as text.

// htmlCheck is one check as the page shows it.
type htmlCheck struct {
	Anchor   string
	ID       string
	Title    string
	Status   string // PASS, FAIL, SKIP
	Class    string // pass, fail, skip
	Points   string
	Message  string
	Expected string
	Actual   string
	Rule     string
	Fix      string
	Evidence []timeline.EvidenceRef
}

// htmlPage is everything the grade page template reads: the page of
// timelines, and the grade.
type htmlPage struct {
	timeline.Page
	Outcome    string
	Detail     string
	Tally      string
	Gradable   bool
	Problem    []string
	Flaky      bool
	Cuts       string
	Submission string
	Checks     []htmlCheck
	NotPassed  []htmlCheck
}

// writeHTML writes the grade page of r (already sanitized) to w, which
// Write buffers (so a page that fails to render is never written).
func writeHTML(w io.Writer, r *grading.Result) error {
	if err := gradeTemplate.Execute(w, gradePage(r)); err != nil {
		return fmt.Errorf("rendering the page: %w", err)
	}
	return nil
}

// gradePage gathers what the grade page shows.
func gradePage(r *grading.Result) *htmlPage {
	t := count(r)
	page, evidence := timeline.Draw(r.Transcript, judged(r))
	p := &htmlPage{Page: page, Gradable: r.Gradable, Tally: t.String(), Flaky: r.Flaky}
	if r.Gradable {
		p.Title = fmt.Sprintf("Lesson %d: %d/%d points", r.Lesson, r.Score, r.MaxScore)
		p.Heading = p.Title
		p.Outcome = outcomeLine(r)
		if outcomeDetailAdds(r) {
			p.Detail = r.Outcome.Detail
		}
	} else {
		p.Title = fmt.Sprintf("Lesson %d: could not grade", r.Lesson)
		p.Heading = p.Title
		p.Outcome = outcomeLine(r)
		p.Problem = problemLines(r)
	}
	if r.Cuts != nil {
		p.Cuts = fmt.Sprint(*r.Cuts)
	}
	p.Submission = submissionLine(r.Submission, asIs)
	for i, c := range r.Checks {
		hc := htmlCheck{
			Anchor: fmt.Sprintf("check-%d", i), ID: c.ID, Title: c.Title,
			Status: statusWord(c.Status), Class: strings.ToLower(statusWord(c.Status)),
			Points:   fmt.Sprintf("%d/%d", c.Points, c.MaxPoints),
			Message:  messageOnly(c),
			Expected: c.Expected, Actual: c.Actual, Rule: c.Rule, Fix: c.Fix,
			Evidence: evidence[i],
		}
		if hc.Message == "" && c.Status != grading.StatusPass && c.Status != grading.StatusFail {
			hc.Message = "This check could not be judged."
		}
		p.Checks = append(p.Checks, hc)
		if c.Status != grading.StatusPass && (t.fail > 0 || r.Gradable) {
			p.NotPassed = append(p.NotPassed, hc)
		}
	}
	return p
}

// judged is what r found that the timelines mark: its checks, and the
// orders its scenarios assert.
func judged(r *grading.Result) timeline.Judged {
	var j timeline.Judged
	for _, c := range r.Checks {
		j.Checks = append(j.Checks, timeline.Check{ID: c.ID, Scenarios: c.Scenarios, Line: c.Line, Actual: c.Actual, Failed: c.Status == grading.StatusFail})
	}
	for _, o := range r.Orders {
		j.Orders = append(j.Orders, timeline.Order{Scenario: o.Scenario, First: o.First, Then: o.Then, Checks: o.Checks})
	}
	return j
}

// renderPage renders a whole page of t with data, then writes it to w: a
// page that fails to render writes nothing. page names it in the error.
func renderPage(w io.Writer, t *template.Template, data any, page string) error {
	if err := timeline.Render(w, t, data, page); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// messageOnly is a check's message without the "Rule: … Fix: …" it ends
// with when the page shows the rule and the fix on their own.
func messageOnly(c grading.CheckResult) string {
	msg := c.Message
	if c.Rule != "" {
		if i := strings.Index(msg, " Rule: "+c.Rule); i >= 0 {
			msg = msg[:i]
		}
	}
	if c.Fix != "" {
		if i := strings.Index(msg, " Fix: "+c.Fix); i >= 0 {
			msg = msg[:i]
		}
	}
	return msg
}

// gradeBlocks are the grade page's parts of the page of timelines (see
// timeline.NewTemplate): the link to the checks, the outcome under the
// heading, and the checks before the timelines.
const gradeBlocks = `{{define "skip"}}<a class="skiplink" href="#checks">Skip to the checks</a>{{end}}
{{define "intro"}}<p>{{if .Gradable}}{{.Tally}}. {{end}}Outcome: <strong>{{.Outcome}}</strong>{{if .Detail}}: {{.Detail}}{{end}}</p>
{{range .Problem}}<p class="banner">Could not grade: {{.}}</p>{{end}}
{{if not .Gradable}}<p>This is not a fail: the grader could not judge the answers at all.</p>{{end}}
{{if .Flaky}}<p class="banner"><strong>Flaky:</strong> the run timed out, was run again, and the two runs disagreed.</p>{{end}}
{{if .Cuts}}<p class="summary">Chunk sweep: the input was cut at random places, number {{.Cuts}} (pass --cuts {{.Cuts}} to cut it the same way again).</p>{{end}}
{{if .Submission}}<p class="summary">Graded: {{.Submission}}.</p>{{end}}{{end}}
{{define "checks"}}<section id="checks" aria-labelledby="checks-h">
<h2 id="checks-h">Checks</h2>
<table><thead><tr><th scope="col">result</th><th scope="col">check</th><th scope="col" class="num">points</th><th scope="col">what it asks</th></tr></thead>
<tbody>{{range .Checks}}<tr class="{{.Class}}"><td class="status">{{.Status}}</td><td>{{if ne .Class "pass"}}<a href="#{{.Anchor}}"><code>{{.ID}}</code></a>{{else}}<code>{{.ID}}</code>{{end}}</td><td class="num">{{.Points}}</td><td>{{.Title}}</td></tr>
{{end}}</tbody></table>
{{if .NotPassed}}<h2 id="not-passed">Checks that did not pass</h2>
{{range .NotPassed}}<article class="check {{.Class}}" id="{{.Anchor}}" aria-labelledby="{{.Anchor}}-h">
<h3 id="{{.Anchor}}-h"><span class="status">{{.Status}}</span> <code>{{.ID}}</code>{{if .Title}}: {{.Title}}{{end}} <span class="summary">({{.Points}} points)</span></h3>
<dl class="sides">
{{if .Message}}<dt>What happened</dt><dd>{{.Message}}</dd>{{end}}
{{if .Actual}}<dt>Actual</dt><dd class="mono">{{.Actual}}</dd>{{end}}
{{if .Expected}}<dt>Expected</dt><dd class="mono">{{.Expected}}</dd>{{end}}
{{if .Rule}}<dt>Rule</dt><dd>{{.Rule}}</dd>{{end}}
{{if .Fix}}<dt>Fix</dt><dd>{{.Fix}}</dd>{{end}}
{{if .Evidence}}<dt>Evidence</dt><dd><ul class="evidence-list">{{range .Evidence}}<li><a class="evidence" href="#{{.Href}}">{{.Label}}</a></li>{{end}}</ul></dd>{{end}}
</dl>
</article>
{{end}}{{end}}
</section>{{end}}`

// gradeTemplate is parsed once; templates are immutable after parsing and
// safe to share.
var gradeTemplate = template.Must(timeline.NewTemplate("grade", gradeBlocks))
