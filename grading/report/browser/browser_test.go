package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/internal/testkit"
)

// pageWithin bounds everything done with one page: loading it, the checks,
// and the screenshot. Generous, so a loaded machine does not fail the test.
const pageWithin = 90 * time.Second

// chromium finds Debian's chromium (or another Chrome) on PATH. Without one
// the test skips, unless CI is set: there .ci/run installs it, and its
// absence is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI is set but no chromium is on PATH: .ci/run installs it with apt-get install -y chromium")
	}
	t.Skip("no chromium on PATH (apt-get install -y chromium installs it); CI is not set, so the browser test skips")
	return ""
}

// artifacts is the folder the screenshots and pages are kept in:
// $MCPLAB_ARTIFACTS/browser, or a temporary folder the log names.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if a := os.Getenv("MCPLAB_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "browser")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("pages and screenshots are kept in %s", dir)
	return dir
}

// programs are the known-bad programs graded, and the lab binary lesson 3's
// relay runs.
var programs = map[string]string{
	"student":  "github.com/mcplab/mcplab/grading/testdata/servers/student",
	"helpdesk": "github.com/mcplab/mcplab/grading/testdata/servers/helpdesk",
	"client":   "github.com/mcplab/mcplab/grading/testdata/clients/student",
	"lab":      "github.com/mcplab/mcplab/cmd/lab",
}

// hostileServer writes markup, a CDATA end and terminal escapes on stdout
// and stderr, then ends.
const hostileServer = `printf '<script>document.title="pwned";window.pwned=1</script> \033[31mred\033[0m ]]> <img src=x onerror="window.pwned=2">\n'
printf '<script>window.pwned=3</script>]]>\033[2J <style>body{display:none}</style>\n' >&2
exit 0
`

type graded struct {
	name string
	opts grading.Options
	res  *grading.Result
}

// gradeAll grades every program of the test at once.
func gradeAll(t *testing.T) []*graded {
	t.Helper()
	bin := t.TempDir()
	paths := map[string]string{}
	for name, pkg := range programs {
		paths[name] = filepath.Join(bin, name)
		if out, err := exec.Command("go", "build", "-o", paths[name], pkg).CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", pkg, err, out)
		}
	}
	hostile := filepath.Join(bin, "hostile.sh")
	if err := os.WriteFile(hostile, []byte(hostileServer), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := func(path string, args ...string) proc.Command { return proc.Command{Path: path, Args: args} }
	runs := []*graded{
		{name: "lesson1-banner", opts: grading.Options{Lesson: 1, Student: cmd(paths["student"], "-mistake", "banner")}},
		{name: "lesson1-chunk-as-line", opts: grading.Options{Lesson: 1, Student: cmd(paths["student"], "-mistake", "chunk-as-line")}},
		{name: "lesson1-good", opts: grading.Options{Lesson: 1, Student: cmd(paths["student"])}},
		{name: "lesson1-hostile", opts: grading.Options{Lesson: 1, Student: cmd("/bin/sh", hostile)}},
		{name: "lesson2-method-message", opts: grading.Options{Lesson: 2, Student: cmd(paths["helpdesk"], "-mistake", "method-message")}},
		{name: "lesson3-namespaced", opts: grading.Options{Lesson: 3, Relay: []string{paths["lab"], "relay"}, Student: cmd(paths["client"], "-mistake", "namespaced")}},
	}
	var wg sync.WaitGroup
	errs := make([]error, len(runs))
	for i, r := range runs {
		wg.Go(func() {
			ctx, cancel := testkit.TestContext(t)
			defer cancel()
			r.res, errs[i] = kinds.Grade(ctx, r.opts)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("grading %s: %v", runs[i].name, err)
		}
	}
	return runs
}

// browserRun is one tab and what it saw: every request and every console
// message, in order.
type browserRun struct {
	mu       sync.Mutex
	requests []string
	console  []string
	marker   chan struct{}
}

const endMarker = "mcplab-browser-test-end"

func (b *browserRun) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, e.Request.URL)
	case *runtime.EventConsoleAPICalled:
		var text []string
		for _, a := range e.Args {
			if a.Value != nil {
				text = append(text, string(a.Value))
			} else {
				text = append(text, a.Description)
			}
		}
		line := string(e.Type) + ": " + strings.Join(text, " ")
		if strings.Contains(line, endMarker) {
			select {
			case b.marker <- struct{}{}:
			default:
			}
			return
		}
		b.console = append(b.console, line)
	case *runtime.EventExceptionThrown:
		b.console = append(b.console, "exception: "+e.ExceptionDetails.Text)
	case *cdplog.EventEntryAdded:
		b.console = append(b.console, fmt.Sprintf("log %s: %s %s", e.Entry.Level, e.Entry.Text, e.Entry.URL))
	}
}

// enable turns on the protocol's network and log events for the tab.
func enable(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
	if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
		return chromedp.Void{}, fmt.Errorf("Network.enable: %w", err)
	}
	if _, err := cdp.Call(ctx, t, cdplog.Enable, cdp.Empty{}); err != nil {
		return chromedp.Void{}, fmt.Errorf("Log.enable: %w", err)
	}
	return chromedp.Void{}, nil
}

// eval evaluates js in the page and decodes its JSON result into T.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %.80q: %v", js, err)
	}
	return v
}

// settle waits until every console message and request the page caused
// before now has reached the listener: a console message written last
// comes after them, in order.
func (b *browserRun) settle(t *testing.T, ctx context.Context) {
	t.Helper()
	eval[chromedp.Void](t, ctx, `console.info("`+endMarker+`")`)
	select {
	case <-b.marker:
	case <-ctx.Done():
		t.Fatalf("the browser never reported the console message written last: %v", ctx.Err())
	}
}

// open loads file in a new tab of the browser and returns the tab, what it
// sees, and a function that closes it.
func open(t *testing.T, browser context.Context, file string) (context.Context, *browserRun, func()) {
	t.Helper()
	b := &browserRun{marker: make(chan struct{}, 1)}
	tab, cancelTab := chromedp.NewContext(browser, chromedp.WithListener(b.listen))
	if err := chromedp.Do(tab, enable); err != nil {
		cancelTab()
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tab, pageWithin)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file)); err != nil {
		cancel()
		cancelTab()
		t.Fatalf("opening %s: %v", file, err)
	}
	return ctx, b, func() { cancel(); cancelTab() }
}

// noNetwork: every request the tab made was for a file of the folder dir.
func (b *browserRun) noNetwork(t *testing.T, dir string) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range b.requests {
		if !strings.HasPrefix(u, "file://"+dir+"/") {
			t.Errorf("the page requested %q, outside its folder: a report must fetch nothing", u)
		}
	}
}

func (b *browserRun) noConsole(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, m := range b.console {
		t.Errorf("the console got %q, want no message at all", m)
	}
}

func screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// viewportShot takes a screenshot of the visible part of the page, for the
// README.
func viewportShot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

type mark struct {
	Scenario string  `json:"scenario"`
	Seq      int     `json:"seq"`
	At       int64   `json:"at"`
	X        float64 `json:"x"`
	Kind     string  `json:"kind"`
}

// TestReportsInChromium renders the grade pages and a class page in
// headless Chromium and checks what a reader sees.
func TestReportsInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grades six programs and starts a browser")
	}
	exe := chromium(t)
	out := artifacts(t)
	runs := gradeAll(t)

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.WindowSize(1200, 1500),
			chromedp.Flag("disable-gpu", true),
			// Nothing may leave the machine, whatever a page asks for.
			chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		)...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}

	pages := filepath.Join(out, "pages")
	if err := os.MkdirAll(pages, 0o755); err != nil {
		t.Fatal(err)
	}
	// The checks themselves: a page that fetches and logs is caught.
	t.Run("control", func(t *testing.T) { checkControlPage(t, browser, pages) })
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) { checkGradeRun(t, browser, r, pages, out) })
	}
	t.Run("class", func(t *testing.T) { checkClassRun(t, browser, runs, out) })
}

// checkControlPage checks the checks: a page that fetches an image and
// logs an error is seen doing both.
func checkControlPage(t *testing.T, browser context.Context, pages string) {
	file := filepath.Join(pages, "control.html")
	bad := `<!DOCTYPE html><title>control</title><img src="http://mcplab.invalid/x.png"><script>console.error("boom")</script>`
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, seen, done := open(t, browser, file)
	defer done()
	seen.settle(t, ctx)
	seen.mu.Lock()
	defer seen.mu.Unlock()
	if !slices.Contains(seen.requests, "http://mcplab.invalid/x.png") || !slices.ContainsFunc(seen.console, func(m string) bool { return strings.Contains(m, "boom") }) {
		t.Errorf("a page that fetches an image and logs an error: requests %q, console %q; want both seen", seen.requests, seen.console)
	}
}

// checkGradeRun writes the grade page of one run into pages, opens it and
// checks it (and the hostile server's page for markup it must not run),
// with no console message and no request, and keeps its screenshot in out.
func checkGradeRun(t *testing.T, browser context.Context, r *graded, pages, out string) {
	var b bytes.Buffer
	if err := report.Write(&b, report.FormatHTML, r.res, report.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(pages, r.name+".html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, seen, done := open(t, browser, file)
	defer done()
	checkGradePage(t, ctx, r.res)
	if r.opts.Lesson == 1 && r.res.Gradable && len(r.res.Orders) == 0 {
		t.Errorf("a graded run of lesson 1 holds no asserted order; its scenario 03-concurrent asserts the answer to 2 before the answer to 1")
	}
	checkAssertedOrders(t, ctx, r.res)
	if r.name == "lesson1-hostile" {
		checkHostile(t, ctx)
	}
	seen.settle(t, ctx)
	seen.noConsole(t)
	seen.noNetwork(t, pages)
	screenshot(t, ctx, filepath.Join(out, r.name+".png"))
	if r.name == "lesson1-chunk-as-line" && os.Getenv("MCPLAB_SCREENSHOTS") == "1" {
		eval[chromedp.Void](t, ctx, `document.getElementById("not-passed").scrollIntoView()`)
		viewportShot(t, ctx, filepath.Join("..", "..", "..", "docs", "img", "grade-page.png"))
	}
}

// checkClassRun writes the class page of the lesson-1 runs into out/class,
// opens it and checks it, and follows each student's link to their page,
// with no console message and no request.
func checkClassRun(t *testing.T, browser context.Context, runs []*graded, out string) {
	dir := filepath.Join(out, "class")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	c := lessonOneClass(runs)
	res, err := class.CreateOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteReports(res, []string{report.FormatHTML, report.FormatJSON}); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteGradebook(res); err != nil {
		t.Fatal(err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, seen, done := open(t, browser, filepath.Join(dir, class.IndexFile))
	defer done()
	checkClassPage(t, ctx, c)
	seen.settle(t, ctx)
	seen.noConsole(t)
	seen.noNetwork(t, dir)
	screenshot(t, ctx, filepath.Join(out, "class.png"))
	if os.Getenv("MCPLAB_SCREENSHOTS") == "1" {
		screenshot(t, ctx, filepath.Join("..", "..", "..", "docs", "img", "class-page.png"))
	}
	// Each row's link opens that student's page.
	links := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#students tbody a")).map(a => a.href)`)
	if len(links) != len(c.Students) {
		t.Fatalf("%d student links, want %d", len(links), len(c.Students))
	}
	for i, l := range links {
		if err := chromedp.Do(ctx, chromedp.Navigate(l)); err != nil {
			t.Fatalf("following %s: %v", l, err)
		}
		title := eval[string](t, ctx, `document.title`)
		if !strings.HasPrefix(title, "Lesson 1: ") {
			t.Errorf("link %d (%s) opened a page titled %q, want the student's grade page", i, l, title)
		}
	}
	seen.settle(t, ctx)
	seen.noConsole(t)
	seen.noNetwork(t, dir)
}

// lessonOneClass is a class of the lesson-1 runs, one student each, in
// name order, the first flagged for a reference transcript.
func lessonOneClass(runs []*graded) *class.Class {
	c := &class.Class{Lesson: 1, Sandbox: "process", Jobs: 1, TimeScale: 1}
	for _, r := range runs {
		if r.opts.Lesson != 1 {
			continue
		}
		c.MaxScore = r.res.MaxScore
		c.Students = append(c.Students, &class.Student{Name: strings.TrimPrefix(r.name, "lesson1-"), Result: r.res, Attempts: 1})
		if len(c.Checks) == 0 {
			for _, ch := range r.res.Checks {
				c.Checks = append(c.Checks, grading.Check{ID: ch.ID, Title: ch.Title, Points: ch.MaxPoints})
			}
		}
	}
	sort.Slice(c.Students, func(i, j int) bool { return c.Students[i].Name < c.Students[j].Name })
	c.Students[0].Flags = []string{class.FlagReferenceTranscript}
	return c
}

// checkGradePage: every check id is listed, there is one mark per event in
// each scenario's time order and drawn left to right, and each evidence link
// lands on a mark of the timeline, scrolled into view.
func checkGradePage(t *testing.T, ctx context.Context, r *grading.Result) {
	t.Helper()
	ids := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#checks > table code")).map(c => c.textContent)`)
	var want []string
	for _, c := range r.Checks {
		want = append(want, c.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("the checks table lists %q, want %q", ids, want)
	}
	marks := eval[[]mark](t, ctx, `Array.from(document.querySelectorAll("svg.timeline g.mark")).map(g => ({
		scenario: g.closest("section.scenario").querySelector("h3").textContent,
		seq: +g.dataset.seq, at: +g.dataset.at, kind: g.dataset.kind,
		x: g.querySelector("rect").getBBox().x}))`)
	if len(marks) != len(r.Transcript) {
		t.Errorf("%d timeline marks, want one per recorded event (%d)", len(marks), len(r.Transcript))
	}
	next := map[string]int{}
	var last mark
	for i, m := range marks {
		sc := strings.TrimPrefix(m.Scenario, "Scenario ")
		next[sc]++
		if m.Seq != next[sc] {
			t.Errorf("mark %d of scenario %s is event %d", next[sc], sc, m.Seq)
		}
		if i < len(r.Transcript) {
			e := r.Transcript[i]
			// A mark is filed under the kind the transcript shows (a rig
			// event's send is to-server), not the kind it was recorded as.
			if kind := e.TranscriptKind(); e.Scenario != sc || e.At.Milliseconds() != m.At || string(kind) != m.Kind {
				t.Errorf("mark %d is %s at %d ms in %s, want the event %s at %d ms in %s", i, m.Kind, m.At, sc, kind, e.At.Milliseconds(), e.Scenario)
			}
		}
		if i > 0 && last.Scenario == m.Scenario && (m.At < last.At || m.X < last.X) {
			t.Errorf("mark %d of scenario %s (%d ms, x %.1f) is left of the one before (%d ms, x %.1f)", m.Seq, sc, m.At, m.X, last.At, last.X)
		}
		last = m
	}
	type landing struct {
		Href     string  `json:"href"`
		Target   bool    `json:"target"`
		Mark     bool    `json:"mark"`
		Evidence bool    `json:"evidence"`
		Top      float64 `json:"top"`
		Height   float64 `json:"height"`
	}
	hrefs := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("a.evidence")).map(a => a.getAttribute("href"))`)
	failed := 0
	for _, c := range r.Checks {
		if c.Status == grading.StatusFail {
			failed++
		}
	}
	if failed > 0 && len(hrefs) == 0 {
		t.Errorf("%d checks failed but no evidence link is on the page", failed)
	}
	for i, h := range hrefs {
		js := fmt.Sprintf(`(() => {
			const a = document.querySelectorAll("a.evidence")[%d];
			a.click();
			const el = document.getElementById(a.getAttribute("href").slice(1));
			if (!el) return {href: a.getAttribute("href"), target: false, mark: false, evidence: false, top: -1, height: 0};
			const r = el.getBoundingClientRect();
			return {href: a.getAttribute("href"), target: el.matches(":target"), mark: el.matches("g.mark") || el.matches("section.scenario"),
				evidence: el.matches(".evidence") || el.matches("section.scenario"), top: r.top, height: innerHeight};
		})()`, i)
		l := eval[landing](t, ctx, js)
		if !l.Target || !l.Mark || !l.Evidence || l.Top < -2 || l.Top > l.Height {
			t.Errorf("evidence link %s: landed %+v, want a mark outlined as evidence, the target, in view", h, l)
		}
	}
}

// checkHostile: nothing the server wrote ran or became markup, and it is
// all there as text.
func checkHostile(t *testing.T, ctx context.Context) {
	t.Helper()
	type state struct {
		Pwned   bool   `json:"pwned"`
		Title   string `json:"title"`
		Scripts int    `json:"scripts"`
		Images  int    `json:"images"`
		Styles  int    `json:"styles"`
		Hidden  bool   `json:"hidden"`
		Text    string `json:"text"`
	}
	s := eval[state](t, ctx, `({pwned: window.pwned !== undefined, title: document.title,
		scripts: document.scripts.length, images: document.images.length, styles: document.querySelectorAll("style").length,
		hidden: getComputedStyle(document.body).display === "none", text: document.body.innerText})`)
	if s.Pwned || strings.Contains(s.Title, "pwned") || s.Scripts != 0 || s.Images != 0 || s.Styles != 1 || s.Hidden {
		t.Errorf("the server's output acted on the page: %+v", struct {
			Pwned          bool
			Title          string
			Scripts, Imgs  int
			Styles         int
			HiddenThe_Body bool
		}{s.Pwned, s.Title, s.Scripts, s.Images, s.Styles, s.Hidden})
	}
	for _, want := range []string{`<script>document.title="pwned";window.pwned=1</script>`, `\x1b[31mred\x1b[0m ]]>`, `<img src=x onerror="window.pwned=2">`, `<script>window.pwned=3</script>]]>\x1b[2J`} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
}

// checkClassPage: the histogram counts the scores, the failed checks are
// drawn, every student has a row, and sorting by score orders the rows.
func checkClassPage(t *testing.T, ctx context.Context, c *class.Class) {
	t.Helper()
	scores := map[string]int{}
	failed := map[string]int{}
	graded := 0
	for _, s := range c.Students {
		if s.Result.Gradable {
			graded++
			scores[fmt.Sprint(s.Result.Score)]++
			for _, id := range s.Result.Failed() {
				failed[id]++
			}
		}
	}
	gotScores := eval[map[string]int](t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("g.bin")).filter(g => +g.dataset.count > 0).map(g => [g.dataset.score, +g.dataset.count]))`)
	if fmt.Sprint(gotScores) != fmt.Sprint(scores) {
		t.Errorf("histogram %v, want %v", gotScores, scores)
	}
	gotFailed := eval[map[string]int](t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll("g.failbar")).map(g => [g.dataset.check, +g.dataset.count]))`)
	if fmt.Sprint(gotFailed) != fmt.Sprint(failed) {
		t.Errorf("failed-check bars %v, want %v", gotFailed, failed)
	}
	text := eval[string](t, ctx, `document.body.innerText`)
	for id := range failed {
		if !strings.Contains(text, id) {
			t.Errorf("the failed check %s is not named on the page", id)
		}
	}
	names := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#students tbody tr td:first-child")).map(td => td.textContent)`)
	var want []string
	for _, s := range c.Students {
		want = append(want, s.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("student rows %q, want %q (by name, without the script's help)", names, want)
	}
	// Sort by score, twice: ascending, then descending.
	js := `(() => { document.querySelectorAll("#students thead button")[2].click();
		return Array.from(document.querySelectorAll("#students tbody tr td:nth-child(3)")).map(td => +td.dataset.key); })()`
	asc := eval[[]float64](t, ctx, js)
	if !slices.IsSorted(asc) || len(asc) != len(want) {
		t.Errorf("sorted by score: %v, want ascending", asc)
	}
	desc := eval[[]float64](t, ctx, js)
	slices.Reverse(desc)
	if !slices.IsSorted(desc) {
		t.Errorf("sorted by score again: %v, want descending", desc)
	}
	raw, _ := json.Marshal(names)
	t.Logf("class page rows: %s", raw)
}

// checkAssertedOrders: each order of answers a scenario asserts is drawn
// once in that scenario's timeline, with its words as the drawing's title,
// and listed once under it; an order whose checks all passed is drawn and
// listed as kept. A page asserts no order the result does not hold.
func checkAssertedOrders(t *testing.T, ctx context.Context, r *grading.Result) {
	t.Helper()
	type shown struct {
		Scenario string `json:"scenario"`
		Where    string `json:"where"` // "svg" or "list"
		First    string `json:"first"`
		Then     string `json:"then"`
		State    string `json:"state"`
		Text     string `json:"text"`
	}
	got := eval[[]shown](t, ctx, `Array.from(document.querySelectorAll("svg.timeline g.asserted, ul.asserted-orders li")).map(e => ({
		scenario: e.closest("section.scenario").querySelector("h3").textContent.replace(/^Scenario /, ""),
		where: e.matches("li") ? "list" : "svg", first: e.dataset.first, then: e.dataset.then,
		state: e.matches(".kept") ? "kept" : e.matches(".broken") ? "broken" : "?",
		text: e.matches("li") ? e.textContent : e.querySelector("title").textContent}))`)
	passed := map[string]bool{}
	for _, c := range r.Checks {
		passed[c.ID] = c.Status == grading.StatusPass
	}
	type key struct{ scenario, where, first, then string }
	seen := map[key]shown{}
	for _, s := range got {
		k := key{s.Scenario, s.Where, s.First, s.Then}
		if _, dup := seen[k]; dup {
			t.Errorf("the order %s before %s of scenario %s is shown twice in the %s", s.First, s.Then, s.Scenario, s.Where)
		}
		seen[k] = s
	}
	for _, o := range r.Orders {
		kept := true
		for _, id := range o.Checks {
			kept = kept && passed[id]
		}
		var text string
		for _, where := range []string{"svg", "list"} {
			s, ok := seen[key{o.Scenario, where, o.First, o.Then}]
			delete(seen, key{o.Scenario, where, o.First, o.Then})
			switch {
			case !ok:
				t.Errorf("scenario %s asserts the answer to %s before the answer to %s, but the page's %s does not show it", o.Scenario, o.First, o.Then, where)
			case kept && s.State != "kept":
				t.Errorf("scenario %s: the order %s before %s is %s in the %s, but its checks %v passed", o.Scenario, o.First, o.Then, s.State, where, o.Checks)
			case !strings.HasPrefix(s.Text, "The lesson asserts the answer to id "+o.First+" before the answer to id "+o.Then):
				t.Errorf("scenario %s: the %s says %q of the order %s before %s", o.Scenario, where, s.Text, o.First, o.Then)
			case text != "" && s.Text != text:
				t.Errorf("scenario %s: the drawing of the order %s before %s says %q, its list %q", o.Scenario, o.First, o.Then, text, s.Text)
			}
			text = s.Text
		}
	}
	for k := range seen {
		t.Errorf("the page's %s shows an order %s before %s in scenario %s that the result does not assert", k.where, k.first, k.then, k.scenario)
	}
}
