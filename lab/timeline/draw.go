package timeline

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// A page of timelines is one self-contained file: the CSS and the SVG
// pictures are inline, nothing is fetched (the page names no URL at all),
// and no script is needed to read it. Every picture's facts are also in a
// table, for a screen reader and for print. Events are cleaned (see Clean)
// and then go through html/template's contextual escaping, so a transcript
// holding <script>, ]]> or terminal escapes shows them as text.
//
// This file is that output: the style, the templates of a page and of one
// scenario's timeline, and the SVG paths of the joins.

// CSS is the style of every page of the lab's: plain, readable, printable, and
// marks told apart by shape and text as well as colour.
const CSS = `
:root{--ok:#1a7f37;--bad:#c62828;--skip:#8a6d00;--ink:#1b1f24;--mute:#59636e;--line:#d0d7de;--bg:#fff}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg);margin:0}
main{max-width:1060px;margin:0 auto;padding:1rem 1.25rem 3rem}
h1{font-size:1.6rem;margin:.5rem 0}
h2{font-size:1.25rem;border-bottom:1px solid var(--line);padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1.05rem;margin:1.2rem 0 .4rem}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
pre{background:#f6f8fa;border:1px solid var(--line);padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border:1px solid var(--line);padding:.25rem .45rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.num,th.num{text-align:right}
.status{font-weight:700;white-space:nowrap}
.pass .status,.s-pass{color:var(--ok)}
.fail .status,.s-fail{color:var(--bad)}
.skip .status,.s-skip{color:var(--skip)}
article.check{border-left:4px solid var(--line);padding:.1rem .9rem;margin:1rem 0}
article.check.fail{border-color:var(--bad)}
article.check.skip{border-color:var(--skip)}
dl.sides{display:grid;grid-template-columns:10rem 1fr;gap:.2rem .8rem;margin:.5rem 0}
dl.sides dt{font-weight:600;color:var(--mute)}
dl.sides dd{margin:0;white-space:pre-wrap;word-break:break-word}
.summary{color:var(--mute)}
.banner{padding:.5rem .8rem;border:1px solid var(--line);background:#fff8e1}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;padding:0;list-style:none;font-size:.9em}
.legend svg{vertical-align:middle}
figure{margin:.4rem 0}
figcaption{color:var(--mute);font-size:.9em}
svg.timeline{width:100%;height:auto;border:1px solid var(--line);background:#fff}
svg text{font:11px system-ui,sans-serif;fill:var(--ink)}
svg .lane-bg{fill:#f6f8fa}
svg .lane-bg.alt{fill:#fff}
svg .lane-name{font-weight:600}
svg .axis line{stroke:var(--line)}
svg .axis text{fill:var(--mute)}
svg .mark rect{fill:#6e7781;stroke:#fff;stroke-width:.5}
svg .k-send rect{fill:#0969da}
svg .k-answer rect,svg .k-to-server rect{fill:#57606a}
svg .k-from-server rect{fill:#8250df}
svg .k-stderr rect{fill:#bf8700}
svg .k-close rect,svg .k-exit rect,svg .k-rig rect{fill:#24292f}
svg .k-note rect{fill:#9a6700}
svg .mark.ok rect{fill:var(--ok)}
svg .mark.wrong rect{fill:var(--bad)}
svg .mark.deadline rect{fill:var(--bad)}
svg .mark.evidence rect{stroke:#000;stroke-width:2}
svg .mark:target rect{stroke:#000;stroke-width:4;stroke-dasharray:none}
svg .nl{stroke:#fff;stroke-width:1.5}
svg .cut-edge{stroke:#e36209;stroke-width:2;stroke-dasharray:2 2}
svg .span{stroke:#0969da;fill:none;stroke-width:1.2}
svg .link{fill:none;stroke-width:1.3;opacity:.8}
svg .link.ok{stroke:var(--ok)}
svg .link.wrong{stroke:var(--bad);stroke-dasharray:4 2}
svg .link.plain{stroke:#8c959f}
svg .deadline-line{stroke:var(--bad);stroke-width:1.5;stroke-dasharray:6 3}
svg .fold{fill:#fff;stroke:#8c959f;stroke-dasharray:3 3}
svg .fold-label{fill:var(--mute);font-style:italic}
svg .order-tag{font-size:9px;font-weight:600;fill:var(--ok)}
table.events td{font-size:.85em}
table.events tr:target{outline:3px solid #000}
table.events .wrong{color:var(--bad);font-weight:600}
table.events .ok{color:var(--ok)}
.skiplink{position:absolute;left:-999px}
.skiplink:focus{left:1rem;top:.5rem;background:#fff;padding:.3rem}
.bars rect.bar{fill:#0969da}
.bars text{font:12px system-ui,sans-serif}
a{color:#0550ae}
@media print{
 body{font-size:10.5pt}
 main{max-width:none;padding:0}
 a{color:inherit;text-decoration:none}
 svg.timeline,figure,article.check,tr{break-inside:avoid}
 h2,h3{break-after:avoid}
 pre{white-space:pre-wrap}
 *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
 .noprint{display:none}
}
`

// The timeline of one scenario, as an SVG figure and its table of events.
const timelineTemplate = `
{{define "legend"}}<ul class="legend" aria-label="What the timeline shows">
<li><svg width="14" height="12" aria-hidden="true"><rect width="14" height="12" fill="#0969da"/></svg> a write ({{if .}}a command to the client{{else}}a chunk on stdin{{end}}; white ticks are newlines inside it, an orange dashed edge a write that ends inside a message)</li>
<li><svg width="14" height="12" aria-hidden="true"><rect width="14" height="12" fill="#1a7f37"/></svg> an answer judged right</li>
<li><svg width="14" height="12" aria-hidden="true"><rect width="14" height="12" fill="#c62828"/></svg> an answer judged wrong, or a deadline that ran out (dashed red line)</li>
<li><svg width="14" height="12" aria-hidden="true"><rect width="14" height="12" fill="#bf8700"/></svg> a line on stderr</li>
<li><svg width="14" height="12" aria-hidden="true"><rect width="14" height="12" fill="#fff" stroke="#000" stroke-width="2"/></svg> the evidence of a failed check (thick outline)</li>
<li><svg width="24" height="12" aria-hidden="true"><path d="M1 2 C1 6 23 6 23 10" stroke="#1a7f37" fill="none"/></svg> an answer joined to the request that asked for it, by id</li>
<li><svg width="24" height="12" aria-hidden="true"><rect x="1" y="1" width="22" height="10" fill="#fff" stroke="#8c959f" stroke-dasharray="3 3"/></svg> a quiet stretch folded (its length is written on it)</li>
</ul>{{end}}
{{define "timeline"}}<section class="scenario" id="{{.Anchor}}" aria-labelledby="{{.Anchor}}-h">
<h3 id="{{.Anchor}}-h">Scenario {{.Name}}</h3>
<figure>
<svg class="timeline" role="img" aria-labelledby="{{.Anchor}}-cap" viewBox="0 0 {{printf "%.0f" .Width}} {{printf "%.0f" .Height}}" width="{{printf "%.0f" .Width}}" height="{{printf "%.0f" .Height}}">
{{range $i, $l := .Lanes}}<rect class="lane-bg{{if odd $i}} alt{{end}}" x="0" y="{{printf "%.1f" $l.Y}}" width="{{printf "%.0f" $.Width}}" height="{{printf "%.1f" $l.H}}"/>
<text class="lane-name" x="6" y="{{printf "%.1f" (add $l.Y 16)}}">{{$l.Short}}<title>{{$l.Name}}</title></text>
{{end}}<g class="axis">{{range .Ticks}}<line x1="{{printf "%.1f" .X}}" y1="18" x2="{{printf "%.1f" .X}}" y2="{{printf "%.0f" $.Height}}"/><text x="{{printf "%.1f" .X}}" y="13" text-anchor="middle">{{.Label}}</text>{{end}}</g>
{{range .Folds}}<rect class="fold" x="{{printf "%.1f" .X}}" y="18" width="34" height="{{printf "%.0f" (add $.Height -18)}}"/><text class="fold-label" x="{{printf "%.1f" (add .X 17)}}" y="{{printf "%.0f" (add $.Height -6)}}" text-anchor="middle">{{.Label}}</text>{{end}}
{{range .Links}}<path class="{{.Class}}" d="{{.D}}"><title>{{.Label}}</title></path>{{end}}
{{range .Spans}}<path class="span" d="M{{printf "%.1f" .X1}} {{printf "%.1f" (add .Y -4)}} V{{printf "%.1f" .Y}} H{{printf "%.1f" .X2}} V{{printf "%.1f" (add .Y -4)}}"><title>{{.Label}}</title></path>{{end}}
{{range .Marks}}{{if .Drawn}}<g class="{{.Class}}" id="{{.ID}}" data-seq="{{.Seq}}" data-at="{{.AtMS}}" data-kind="{{.Kind}}"><title>{{.Title}}</title><rect x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="12" rx="1"/>{{$m := .}}{{range .Newlines}}<line class="nl" x1="{{printf "%.1f" .}}" x2="{{printf "%.1f" .}}" y1="{{printf "%.1f" (add $m.Y 2)}}" y2="{{printf "%.1f" (add $m.Y 10)}}"/>{{end}}{{if .CutEnd}}<line class="cut-edge" x1="{{printf "%.1f" (add .X .W)}}" x2="{{printf "%.1f" (add .X .W)}}" y1="{{printf "%.1f" (add .Y -2)}}" y2="{{printf "%.1f" (add .Y 14)}}"/>{{end}}</g>
{{end}}{{end}}{{range .OrderTags}}<text class="order-tag" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}">{{.Text}}</text>{{end}}{{range .Asserted}}<g class="asserted {{.State}}" data-first="{{.First}}" data-then="{{.Then}}"><title>{{.Text}}</title>{{if .D}}<path d="{{.D}}" fill="none" stroke="{{.Colour}}" stroke-width="1.5"{{if .Dash}} stroke-dasharray="{{.Dash}}"{{end}}/>{{end}}{{if .Tag}}<text x="{{printf "%.1f" .Tag.X}}" y="{{printf "%.1f" .Tag.Y}}" text-anchor="{{.Anchor}}" style="font-size:9px;font-weight:600;fill:{{if eq .State "kept"}}#1a7f37{{else}}#c62828{{end}}">{{.Tag.Text}}</text>{{end}}</g>{{end}}
{{range .Deadlines}}<line class="deadline-line" x1="{{printf "%.1f" .X}}" x2="{{printf "%.1f" .X}}" y1="18" y2="{{printf "%.0f" $.Height}}"><title>{{.Label}}</title></line>{{end}}
</svg>
<figcaption id="{{.Anchor}}-cap">Timeline of scenario {{.Name}}: {{len .Marks}} events over {{.EndMS}} ms, drawn to scale{{if .Folds}} except {{if eq (len .Folds) 1}}one folded quiet stretch{{else}}{{len .Folds}} folded quiet stretches{{end}}{{end}}. The table below lists every event drawn.{{if .Undrawn}} The {{.Undrawn}} events after these are not drawn, to keep the page readable: the transcript at the end of the page lists them.{{end}}</figcaption>
</figure>
{{if .Orders}}<p><strong>Order:</strong></p><ul class="orders">{{range .Orders}}<li>{{.}}</li>{{end}}</ul>{{end}}{{if .Asserted}}<p><strong>Order the lesson asserts:</strong></p><ul class="asserted-orders">{{range .Asserted}}<li class="{{.State}}" data-first="{{.First}}" data-then="{{.Then}}">{{.Text}}</li>{{end}}</ul>{{end}}
{{if .Deadlines}}<p><strong>Deadlines that ran out:</strong></p><ul>{{range .Deadlines}}<li>{{.Label}}</li>{{end}}</ul>{{end}}
<details{{if .HasEvidence}} open{{end}}><summary>The {{len .Marks}} events of scenario {{.Name}} as a table</summary>
<table class="events"><caption class="summary">Scenario {{.Name}}: each event, the lane it is drawn in, and what it is joined to</caption>
<thead><tr><th scope="col" class="num">#</th><th scope="col" class="num">time</th><th scope="col">lane</th><th scope="col">kind</th><th scope="col">text</th><th scope="col">joined to</th><th scope="col">verdict</th></tr></thead>
<tbody>{{range .Marks}}<tr id="{{.RowID}}"><td class="num"><a href="#{{.ID}}">{{.Seq}}</a></td><td class="num">{{.AtMS}} ms</td><td>{{.Lane}}</td><td>{{.Kind}}</td><td class="mono">{{.Text}}</td><td>{{if .JoinRef}}<a href="#{{.JoinRef}}">{{.JoinedTo}}</a>{{else}}{{.JoinedTo}}{{end}}</td><td class="{{verdictClass .Verdict}}">{{.Verdict}}{{if .Evidence}} (evidence of {{join .Evidence ", "}}){{end}}</td></tr>
{{end}}</tbody></table></details>
</section>{{end}}`

// PageHead begins every page of the lab's: the document, its language,
// its character set, a width for phones, and the title (each page's
// template reads .Title). The page's <style> follows.
const PageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
`

// pageHTML is a page of timelines: the page of lab run as it is, and the
// skeleton of the grade page, which defines the blocks "skip" (a link
// before <main>), "intro" (what the header says under the heading) and
// "checks" (what comes before the timelines).
const pageHTML = PageHead + `<style>{{.Style}}</style>
</head>
<body>
{{block "skip" .}}{{end}}
<main>
<header>
<h1>{{.Heading}}</h1>
{{block "intro" .}}<p>What happened on each stream while the scenario played, drawn to scale. Nothing here is graded: run lab grade for that.</p>{{end}}
</header>
{{block "checks" .}}{{end}}
{{if .Scenarios}}<section id="timeline" aria-labelledby="timeline-h">
<h2 id="timeline-h">Timeline</h2>
<p>Each scenario drawn to scale, one lane per stream{{if .Client}} (the commands the grader gave the client, the client's answers, one lane per server the grader played, and stderr){{end}}. Move the pointer over a mark to read it; the table under each picture says the same in words.</p>
{{template "legend" .Client}}
{{range .Scenarios}}{{template "timeline" .}}{{end}}
</section>
<section id="transcript" aria-labelledby="transcript-h">
<h2 id="transcript-h">Transcript</h2>
<p><code>-&gt;</code> a chunk {{if .Client}}the grader wrote to the client{{else}}the grader wrote to stdin{{end}} (a <code>|</code> between spaces marks a newline inside it), <code>&lt;-</code> a line on stdout, <code>stderr</code> a line on stderr.</p>
{{range .Transcript}}<h3>Scenario {{.Name}}</h3>
<pre>{{.Lines}}</pre>
{{end}}</section>{{end}}
</main>
</body>
</html>
`

// Render renders a whole page of t with data, then writes it to w: a page
// that fails to render writes nothing. page names it in the error.
func Render(w io.Writer, t *template.Template, data any, page string) error {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return fmt.Errorf("rendering the %s: %w", page, err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("writing the %s: %w", page, err)
	}
	return nil
}

// templateFuncs are the functions the templates call.
func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"add":          func(a, b float64) float64 { return a + b },
		"odd":          func(i int) bool { return i%2 == 1 },
		"join":         strings.Join,
		"verdictClass": verdictClass,
	}
}

// NewTemplate is a page of timelines named name, with blocks defines
// (a template text of {{define}}s) puts in place of pageHTML's own: the
// page's data is a Page, or a struct that embeds one and has what the
// blocks read.
func NewTemplate(name, blocks string) (*template.Template, error) {
	t, err := template.New(name).Funcs(templateFuncs()).Parse(pageHTML)
	if err != nil {
		return nil, fmt.Errorf("timeline: the page: %w", err)
	}
	if _, err := t.New("parts").Parse(timelineTemplate); err != nil {
		return nil, fmt.Errorf("timeline: the timeline: %w", err)
	}
	if _, err := t.New(name + " blocks").Parse(blocks); err != nil {
		return nil, fmt.Errorf("timeline: the blocks of %s: %w", name, err)
	}
	return t, nil
}

// verdictClass is the CSS class of a verdict: wrong, ok, or plain for an
// event that is not judged.
func verdictClass(v string) string {
	switch {
	case strings.HasPrefix(v, "wrong"):
		return "wrong"
	case v == "right":
		return "ok"
	}
	return "plain"
}

// curve is an S-shaped path from (x1,y1) down or up to (x2,y2).
func curve(x1, y1, x2, y2 float64) string {
	my := (y1 + y2) / 2
	return fmt.Sprintf("M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f", x1, y1, x1, my, x2, my, x2, y2)
}
