package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/lab/textesc"
	"github.com/mcplab/mcplab/lab/timeline"
)

// ClassPage is what the class page (results/index.html) shows: the class's
// checks and one row per student. The caller fills it from its own record
// of the class; WriteClassHTML draws the score histogram and the checks
// failed most from the rows, so two runs that graded the same students the
// same way (one run, or shards merged) give the same bytes.
type ClassPage struct {
	// Lesson is the lesson's number; MaxScore its points.
	Lesson   int
	MaxScore int
	// Checks are the lesson's checks, in order.
	Checks []ClassCheck
	// Students are the rows, in any order (the page sorts them by name).
	Students []ClassStudent
	// Incomplete, when set, says the grading was stopped before every
	// student was graded, and StoppedBy what stopped it.
	Incomplete bool
	StoppedBy  string
}

// ClassCheck names one check of the lesson.
type ClassCheck struct{ ID, Title string }

// ClassStudent is one row of the class page.
type ClassStudent struct {
	// Name is the submission folder's name.
	Name string
	// Href is the relative link to the student's own report
	// ("students/alice/report.html"), or empty for none.
	Href string
	// Status is graded, ungradable or not-graded.
	Status string
	// Score counts only when Status is graded.
	Score int
	// Outcome is the outcome kind of the run, Flaky whether its rerun
	// disagreed.
	Outcome string
	Flaky   bool
	// Flags name what the teacher should look at before trusting the score.
	Flags []string
	// Failed lists the ids of the checks the student failed.
	Failed []string
}

// classRow is a student row as the template shows it.
type classRow struct {
	ClassStudent
	ScoreText, ScoreKey string
	FlagsText, Failed   string
}

// classBar is one bar of a bar chart.
type classBar struct {
	Label, Title string
	Count        int
	X, Y, W, H   float64
}

type classView struct {
	Title      string
	Style      template.CSS
	Page       *ClassPage
	Rows       []classRow
	Graded     int
	Ungradable int
	NotGraded  int
	Passed     int
	Histogram  []classBar
	HistW      float64
	HistH      float64
	Failed     []classBar
	FailedH    float64
	Script     template.JS
}

// Bar chart sizes.
const (
	histPlotH = 140.0
	histMaxW  = 900.0
	failRowH  = 22.0
	failLabel = 260.0
	failPlotW = 560.0
)

// WriteClassHTML writes the class page: counts, a histogram of the scores
// of the graded students, the checks failed most as bars, and a table of
// the students (status, score, outcome, flags, failed checks), each row
// linking to the student's page. The table can be sorted by any column
// with a few lines of inline script; without the script it reads sorted by
// name. Every name is shown through clean and html/template's escaping.
func WriteClassHTML(w io.Writer, p *ClassPage) error {
	if p == nil {
		return fmt.Errorf("report: no class to write")
	}
	v := &classView{Page: p, Style: template.CSS(timeline.CSS), Script: template.JS(sortScript)}
	v.Title = fmt.Sprintf("Lesson %d: class results", p.Lesson)
	students := append([]ClassStudent(nil), p.Students...)
	sort.SliceStable(students, func(i, j int) bool { return students[i].Name < students[j].Name })
	scores := map[int]int{}
	failed := map[string]int{}
	for _, s := range students {
		s.Name = clean(s.Name)
		s.Outcome = clean(s.Outcome)
		row := classRow{ClassStudent: s, ScoreText: "—", ScoreKey: "-1"}
		switch s.Status {
		case "graded":
			v.Graded++
			scores[s.Score]++
			if len(s.Failed) == 0 {
				v.Passed++
			}
			for _, id := range s.Failed {
				failed[id]++
			}
			row.ScoreText = fmt.Sprintf("%d/%d", s.Score, p.MaxScore)
			row.ScoreKey = fmt.Sprint(s.Score)
		case "not-graded":
			v.NotGraded++
		default:
			v.Ungradable++
		}
		flags := append([]string(nil), s.Flags...)
		if s.Flaky {
			flags = append(flags, "flaky")
		}
		row.FlagsText = clean(strings.Join(flags, ", "))
		row.Failed = clean(strings.Join(s.Failed, ", "))
		if !safeHref(s.Href) {
			row.Href = ""
		}
		v.Rows = append(v.Rows, row)
	}

	// The histogram: one bar per score from 0 to the maximum.
	most := 1
	for _, n := range scores {
		most = max(most, n)
	}
	bins := p.MaxScore + 1
	bw := min(40, histMaxW/float64(max(bins, 1)))
	for s := 0; s <= p.MaxScore; s++ {
		n := scores[s]
		h := histPlotH * float64(n) / float64(most)
		v.Histogram = append(v.Histogram, classBar{
			Label: fmt.Sprint(s), Title: fmt.Sprintf("%d students scored %d/%d", n, s, p.MaxScore), Count: n,
			X: 40 + float64(s)*bw, Y: 20 + histPlotH - h, W: bw - 2, H: h,
		})
	}
	v.HistW = 40 + float64(bins)*bw + 20
	v.HistH = histPlotH + 60

	// The checks failed most, in the lesson's order among equals.
	titles := map[string]string{}
	var ids []string
	for _, c := range p.Checks {
		titles[c.ID] = c.Title
		if failed[c.ID] > 0 {
			ids = append(ids, c.ID)
		}
	}
	for id := range failed {
		if _, ok := titles[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.SliceStable(ids, func(i, j int) bool {
		if failed[ids[i]] != failed[ids[j]] {
			return failed[ids[i]] > failed[ids[j]]
		}
		return false
	})
	for i, id := range ids {
		n := failed[id]
		w := failPlotW * float64(n) / float64(max(v.Graded, 1))
		v.Failed = append(v.Failed, classBar{
			Label: clean(id), Title: clean(titles[id]), Count: n,
			X: failLabel, Y: 10 + float64(i)*failRowH, W: max(w, 2), H: failRowH - 6,
		})
	}
	v.FailedH = 20 + float64(len(ids))*failRowH
	return renderPage(w, classTemplate, v, "class page")
}

// safeHref accepts only a relative link down into the results folder.
func safeHref(h string) bool {
	first, _, _ := strings.Cut(h, "/")
	if h == "" || slices.Contains(strings.Split(h, "/"), "..") || strings.Contains(first, ":") || strings.HasPrefix(h, "/") || strings.ContainsAny(h, "\\\x00") {
		return false
	}
	return textesc.Visible(h) == h
}

// sortScript makes each column header of the students table a button that
// sorts by it; the table reads the same without it.
const sortScript = `
(function(){
  var table = document.getElementById("students");
  if (!table) return;
  var heads = table.tHead.rows[0].cells;
  for (var i = 0; i < heads.length; i++) (function(col){
    var th = heads[col];
    var b = document.createElement("button");
    b.type = "button";
    b.className = "sort";
    b.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(b);
    b.addEventListener("click", function(){
      var asc = th.getAttribute("aria-sort") !== "ascending";
      for (var k = 0; k < heads.length; k++) heads[k].removeAttribute("aria-sort");
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        var x = a.cells[col].getAttribute("data-key") || a.cells[col].textContent;
        var y = b.cells[col].getAttribute("data-key") || b.cells[col].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  })(i);
})();
`

// classHTML is the class page.
const classHTML = timeline.PageHead + `<style>{{.Style}}
table.histogram{width:auto;min-width:16rem}
button.sort{font:inherit;font-weight:700;background:none;border:0;padding:0;cursor:pointer;color:inherit;text-decoration:underline dotted}
th[aria-sort=ascending] button.sort::after{content:" ▲"}
th[aria-sort=descending] button.sort::after{content:" ▼"}
</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
{{if .Page.Incomplete}}<p class="banner"><strong>Incomplete:</strong> the grading was stopped ({{.Page.StoppedBy}}) before {{.NotGraded}} submissions were graded; they are listed as not graded. Grade them again.</p>{{end}}
<ul>
<li>Submissions: {{len .Rows}}</li>
<li>Graded: {{.Graded}} (every check passed: {{.Passed}})</li>
<li>Could not grade: {{.Ungradable}} (no score: see each student's report for why)</li>
{{if .NotGraded}}<li>Not graded (the grading was stopped): {{.NotGraded}}</li>{{end}}
</ul>
<section id="histogram" aria-labelledby="histogram-h">
<h2 id="histogram-h">Scores</h2>
{{if .Graded}}<figure>
<svg class="bars" role="img" aria-labelledby="histogram-cap" viewBox="0 0 {{printf "%.0f" .HistW}} {{printf "%.0f" .HistH}}" width="{{printf "%.0f" .HistW}}" height="{{printf "%.0f" .HistH}}">
<line x1="38" y1="160" x2="{{printf "%.0f" .HistW}}" y2="160" stroke="#8c959f"/>
{{range .Histogram}}<g class="bin" data-score="{{.Label}}" data-count="{{.Count}}"><title>{{.Title}}</title>{{if .Count}}<rect class="bar" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}"/><text x="{{printf "%.1f" (add .X (half .W))}}" y="{{printf "%.1f" (add .Y -3)}}" text-anchor="middle">{{.Count}}</text>{{end}}<text x="{{printf "%.1f" (add .X (half .W))}}" y="176" text-anchor="middle">{{.Label}}</text></g>
{{end}}<text x="40" y="196">score (points of {{.Page.MaxScore}})</text>
</svg>
<figcaption id="histogram-cap">How many graded students got each score; the table below says the same.</figcaption>
</figure>
<table class="histogram"><thead><tr><th scope="col" class="num">score</th><th scope="col" class="num">students</th></tr></thead>
<tbody>{{range .Histogram}}{{if .Count}}<tr><td class="num">{{.Label}}/{{$.Page.MaxScore}}</td><td class="num">{{.Count}}</td></tr>{{end}}{{end}}</tbody></table>
{{else}}<p>No student could be graded.</p>{{end}}
</section>
<section id="failed" aria-labelledby="failed-h">
<h2 id="failed-h">Checks failed most</h2>
{{if .Failed}}<figure>
<svg class="bars" role="img" aria-labelledby="failed-cap" viewBox="0 0 900 {{printf "%.0f" .FailedH}}" width="900" height="{{printf "%.0f" .FailedH}}">
{{range .Failed}}<g class="failbar" data-check="{{.Label}}" data-count="{{.Count}}"><title>{{.Count}} of {{$.Graded}} graded students failed {{.Label}}</title><text x="{{printf "%.0f" (add .X -8)}}" y="{{printf "%.1f" (add .Y 12)}}" text-anchor="end">{{.Label}}</text><rect class="bar" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}"/><text x="{{printf "%.1f" (add (add .X .W) 6)}}" y="{{printf "%.1f" (add .Y 12)}}">{{.Count}} of {{$.Graded}}</text></g>
{{end}}</svg>
<figcaption id="failed-cap">How many graded students failed each check, most failed first; the table below says the same.</figcaption>
</figure>
<table><thead><tr><th scope="col">check</th><th scope="col" class="num">students who failed it</th><th scope="col">what it asks</th></tr></thead>
<tbody>{{range .Failed}}<tr><td><code>{{.Label}}</code></td><td class="num">{{.Count}} of {{$.Graded}}</td><td>{{.Title}}</td></tr>
{{end}}</tbody></table>
{{else}}<p>No graded student failed any check.</p>{{end}}
</section>
<section id="students-s" aria-labelledby="students-h">
<h2 id="students-h">Students</h2>
<p class="noprint summary">Sorted by name; a column's heading sorts by it.</p>
<table id="students"><thead><tr><th scope="col">student</th><th scope="col">status</th><th scope="col" class="num">score</th><th scope="col">outcome</th><th scope="col">flags</th><th scope="col">failed checks</th></tr></thead>
<tbody>{{range .Rows}}<tr class="s-{{.Status}}"><td>{{if .Href}}<a href="{{.Href}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td>{{.Status}}</td><td class="num" data-key="{{.ScoreKey}}">{{.ScoreText}}</td><td>{{.Outcome}}</td><td>{{.FlagsText}}</td><td>{{.Failed}}</td></tr>
{{end}}</tbody></table>
</section>
</main>
<script>{{.Script}}</script>
</body>
</html>
`

var classTemplate = template.Must(template.New("class").Funcs(template.FuncMap{
	"add":  func(a, b float64) float64 { return a + b },
	"half": func(a float64) float64 { return a / 2 },
}).Parse(classHTML))
