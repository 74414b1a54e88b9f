// Package starter_test grades lesson 1's starters with the real grader: each
// starter as shipped, then after each stage of its solution, applied in
// order. The scores it must find are not written here: they are the tables
// in the starters' READMEs and in the teacher key, which this test reads.
// After a change to the grader or the starters, rewrite those tables with
//
//	go test ./lessons/01-reading-messages/starter -update
//
// and check that the words around them still hold.
package starter_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

var update = flag.Bool("update", false, "rewrite the score tables of the starters' READMEs and of the teacher key from this run's grades")

// keyPath is the teacher key, which holds the score table of every stage in
// every language.
const keyPath = "../teacher-key.md"

// A language is one starter: the name the tables give it, its folder (under
// starter/ and under stages/), the file that holds its TODOs, and the
// interpreter that runs that file ("" for Go, which is built first).
type language struct {
	name, dir, source, tool string
}

var languages = []language{
	{name: "Go", dir: "go", source: "main.go"},
	{name: "Python", dir: "python", source: "server.py", tool: "python3"},
	{name: "JavaScript", dir: "javascript", source: "server.js", tool: "node"},
}

// command returns the command that starts the starter copied into dir,
// building it first when it is the Go one.
func (l language) command(t *testing.T, dir string) proc.Command {
	if l.tool == "" {
		return goBuild(t, dir)
	}
	return proc.Command{Path: l.interpreter(t), Args: []string{l.source}, Dir: dir}
}

// interpreter finds the starter's interpreter on PATH, or skips the test,
// saying which starter goes ungraded. Only a missing interpreter skips: CI
// has python3 and node, so there the starters are always graded.
func (l language) interpreter(t *testing.T) string {
	path, err := exec.LookPath(l.tool)
	if err != nil {
		t.Skipf("%s is not on PATH, so the %s starter is not graded here", l.tool, l.name)
	}
	if l.tool == "python3" {
		// Run the interpreter itself, not a wrapper that finds it (pyenv's
		// shims are shell scripts): a server that starts slowly on a busy
		// machine would be graded on more than its own code.
		out, err := exec.Command(path, "-c", "import sys; print(sys.executable)").Output()
		if err != nil {
			t.Fatalf("%s does not run: %v", path, err)
		}
		if exe := strings.TrimSpace(string(out)); exe != "" {
			return exe
		}
		return path
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", path, err)
	}
	version := strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0])
	if major < 18 {
		t.Skipf("node is %s; the JavaScript starter needs Node 18 or later, so it is not graded here", version)
	}
	return path
}

// goBuild builds the Go starter in dir as a module of its own, like a
// student who copied its folder.
func goBuild(t *testing.T, dir string) proc.Command {
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if formatted, err := format.Source(src); err != nil || !bytes.Equal(formatted, src) {
		t.Errorf("main.go is not gofmt-formatted (err %v)", err)
	}
	exe := filepath.Join(dir, "server")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the Go starter: %v\n%s", err, out)
	}
	return proc.Command{Path: exe, Dir: dir}
}

// A stage is one TODO's solution, kept as a unified diff that applies to the
// starter with the stages before it applied.
type stage struct {
	number int
	// todo is the TODO the stage solves, as the source names it after
	// "TODO(lesson 1): ": "parse errors" for 2-parse-errors.diff.
	todo string
	path string
}

// label names a stage in the tables: "0. as shipped", "1. framing".
func label(stages []stage, k int) string {
	if k == 0 {
		return "0. as shipped"
	}
	return fmt.Sprintf("%d. %s", k, stages[k-1].todo)
}

var stageName = regexp.MustCompile(`^([0-9]+)-([a-z][a-z0-9-]*)\.diff$`)

// readStages lists a language's stages in order; they must be numbered 1, 2,
// 3... with nothing missing.
func readStages(t *testing.T, lang language) []stage {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("stages", lang.dir))
	if err != nil {
		t.Fatalf("the %s starter's stages: %v", lang.name, err)
	}
	var stages []stage
	for _, e := range entries {
		m := stageName.FindStringSubmatch(e.Name())
		if m == nil {
			t.Fatalf("stages/%s/%s: a stage is named N-what-it-does.diff", lang.dir, e.Name())
		}
		n, _ := strconv.Atoi(m[1])
		stages = append(stages, stage{number: n, todo: strings.ReplaceAll(m[2], "-", " "), path: filepath.Join("stages", lang.dir, e.Name())})
	}
	sort.Slice(stages, func(i, j int) bool { return stages[i].number < stages[j].number })
	for i, s := range stages {
		if s.number != i+1 {
			t.Fatalf("stages/%s: stage %d is missing (found %s)", lang.dir, i+1, s.path)
		}
	}
	return stages
}

// todoMarker finds the TODOs of a starter: "TODO(lesson 1): framing."
var todoMarker = regexp.MustCompile(`TODO\(lesson 1\): ([a-z][a-z ]*)\.`)

// buildStage copies the starter into a new folder and applies its first k
// stages, checking that each one solves its own TODO. It returns the folder.
func buildStage(t *testing.T, lang language, stages []stage, k int) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(lang.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		if !e.Type().IsRegular() {
			t.Fatalf("%s/%s: a starter folder holds plain files only", lang.dir, e.Name())
		}
		data, err := os.ReadFile(filepath.Join(lang.dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range stages[:k] {
		text, err := os.ReadFile(s.path)
		if err != nil {
			t.Fatal(err)
		}
		files, err := parseDiff(string(text))
		if err != nil {
			t.Fatalf("%s: %v", s.path, err)
		}
		todo := "TODO(lesson 1): " + s.todo + "."
		solved := false
		for _, f := range files {
			name := filepath.Join(dir, filepath.FromSlash(f.path))
			if filepath.Dir(name) != dir {
				t.Fatalf("%s changes %q: a stage only changes files of the starter's folder", s.path, f.path)
			}
			before, err := os.ReadFile(name)
			if err != nil {
				t.Fatalf("%s: %v", s.path, err)
			}
			after, err := applyHunks(string(before), f.hunks)
			if err != nil {
				t.Fatalf("%s does not apply to %s after the stages before it: %v", s.path, f.path, err)
			}
			if strings.Contains(string(before), todo) && !strings.Contains(after, todo) {
				solved = true
			}
			if err := os.WriteFile(name, []byte(after), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if !solved {
			t.Errorf("%s does not remove the comment %q: each stage solves the TODO it is named after", s.path, todo)
		}
	}
	return dir
}

// TestStagesSolveTheTODOs checks the stages against the starters without
// grading: every TODO has a stage named after it, the stages apply in order,
// each removes its own TODO, and the three starters have the same TODOs.
func TestStagesSolveTheTODOs(t *testing.T) {
	var want []string
	for _, lang := range languages {
		stages := readStages(t, lang)
		var names []string
		for _, s := range stages {
			names = append(names, s.todo)
		}
		if want == nil {
			want = names
		} else if strings.Join(names, ", ") != strings.Join(want, ", ") {
			t.Errorf("the %s stages are %q, the %s ones %q: every starter has the same TODOs", lang.name, names, languages[0].name, want)
		}
		shipped, err := os.ReadFile(filepath.Join(lang.dir, lang.source))
		if err != nil {
			t.Fatal(err)
		}
		var todos []string
		for _, m := range todoMarker.FindAllStringSubmatch(string(shipped), -1) {
			todos = append(todos, m[1])
		}
		if strings.Join(todos, ", ") != strings.Join(names, ", ") {
			t.Errorf("%s/%s has the TODOs %q, in that order; its stages are %q", lang.dir, lang.source, todos, names)
		}
		dir := buildStage(t, lang, stages, len(stages))
		done, err := os.ReadFile(filepath.Join(dir, lang.source))
		if err != nil {
			t.Fatal(err)
		}
		if m := todoMarker.FindString(string(done)); m != "" {
			t.Errorf("%s: %q is left after the last stage", lang.dir, m)
		}
	}
}

// TestStarters grades every starter at every stage and compares the scores
// with the tables of the starters' READMEs and of the teacher key, and each
// TODO's "Fixes" list with the checks its stage turned green.
func TestStarters(t *testing.T) {
	if testing.Short() {
		t.Skip("grading 18 servers takes a minute; not in -short mode")
	}
	results, stages := gradeStarters(t)
	checkTODOFixes(t, results, stages)
	tables, all := starterTables(results, stages)
	if all {
		t.Logf("scores measured in this run, as the teacher key shows them:\n%s", render(tables[len(tables)-1].rows))
	} else if t.Failed() {
		return // the grading failures above say what went wrong
	} else {
		t.Logf("not every starter was graded, so the teacher key's table is not checked")
	}
	if *update {
		if !all {
			t.Fatal("-update needs every starter graded: the teacher key's table covers all three")
		}
		if t.Failed() {
			t.Fatal("not updating the tables: a starter failed to build or grade")
		}
		for _, tb := range tables {
			if err := tb.write(); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, tb := range tables {
		for _, p := range tb.problems() {
			t.Error(p)
		}
	}
}

// gradeStarters grades every starter at every stage, in parallel subtests
// of "grade", and returns the results by language folder, then stage (a
// language whose interpreter is missing has none), and each one's stages.
func gradeStarters(t *testing.T) (map[string][]*grading.Result, map[string][]stage) {
	var (
		mu      sync.Mutex
		results = map[string][]*grading.Result{} // by language folder, then stage
		stages  = map[string][]stage{}
	)
	// Every stage of every starter is graded at once: a grade mostly
	// waits (on the starters' deadline failures, confirmed at a larger
	// scale), so 18 of them overlap where t.Parallel, held to two at a
	// time on two cores, made them take turns for seven minutes.
	t.Run("grade", func(t *testing.T) {
		names := make([]string, len(languages))
		for i, lang := range languages {
			names[i] = lang.dir
		}
		testkit.Concurrently(t, len(languages), names, func(t *testing.T, i int) {
			lang := languages[i]
			{ // one starter's stages
				if lang.tool != "" {
					lang.interpreter(t) // skips now when it is missing
				}
				st := readStages(t, lang)
				mu.Lock()
				stages[lang.dir] = st
				results[lang.dir] = make([]*grading.Result, len(st)+1)
				mu.Unlock()
				labels := make([]string, len(st)+1)
				for k := range labels {
					labels[k] = strings.NewReplacer(". ", "-", " ", "-").Replace(label(st, k))
				}
				testkit.Concurrently(t, len(labels), labels, func(t *testing.T, k int) {
					res := gradeStage(t, lang, st, k)
					mu.Lock()
					results[lang.dir][k] = res
					mu.Unlock()
				})
			}
		})
	})
	return results, stages
}

// gradeStage builds lang's starter with its first k stages done and grades
// it, failing the test when it cannot be graded.
func gradeStage(t *testing.T, lang language, st []stage, k int) *grading.Result {
	t.Helper()
	dir := buildStage(t, lang, st, k)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := grading.Options{Student: lang.command(t, dir)}
	if k == 0 {
		// As shipped, a starter takes each read for a
		// line, so its verdicts rest on the grader's
		// chunks staying apart, which the grader
		// ensures by waiting for each to be read. A
		// server still starting (python3 took 4 s at
		// load average 74) must not outlast that
		// wait, so the deadlines are stretched here.
		// Once framing is done, chunks may merge
		// without changing any verdict.
		opts.TimeScale = 4
	}
	res, err := kinds.Grade(ctx, opts)
	if err != nil {
		t.Fatalf("grading: %v", err)
	}
	if !res.Gradable {
		t.Fatalf("the grader could not grade it: %s", res.Problem)
	}
	return res
}

// starterTables is the tables the results must match: each fully graded
// starter's README tables, and the teacher key's when every starter was
// graded (all).
func starterTables(results map[string][]*grading.Result, stages map[string][]stage) (tables []docTable, all bool) {
	graded := map[string]bool{}
	for _, lang := range languages {
		rs, ok := results[lang.dir]
		if !ok {
			continue // skipped: its interpreter is missing
		}
		complete := true
		for _, r := range rs {
			complete = complete && r != nil
		}
		graded[lang.dir] = complete
	}
	for _, lang := range languages {
		if graded[lang.dir] {
			readme := filepath.Join(lang.dir, "README.md")
			tables = append(tables,
				docTable{readme, "shipped", shippedTable(results[lang.dir][0])},
				docTable{readme, "stages", stagesTable(stages[lang.dir], results[lang.dir])})
		}
	}
	all = len(graded) == len(languages)
	for _, ok := range graded {
		all = all && ok
	}
	if all {
		tables = append(tables, docTable{keyPath, "stages", keyTable(stages[languages[0].dir], results)})
	}
	return tables, all
}

// shippedTable states, for one starter as shipped, every check's verdict
// and the score.
func shippedTable(res *grading.Result) [][]string {
	rows := [][]string{{"Check", "As shipped"}}
	for _, c := range res.Checks {
		verdict := "fails"
		if c.Status == grading.StatusPass {
			verdict = "passes"
		}
		unit := "points"
		if c.MaxPoints == 1 {
			unit = "point"
		}
		rows = append(rows, []string{"`" + c.ID + "`", fmt.Sprintf("%s, %d of %d %s", verdict, c.Points, c.MaxPoints, unit)})
	}
	return append(rows, []string{"**Score**", fmt.Sprintf("**%d of %d**", res.Score, res.MaxScore)})
}

// stagesTable states, for one starter, the score and the failing checks
// after each stage.
func stagesTable(stages []stage, rs []*grading.Result) [][]string {
	rows := [][]string{{"Stage", "Score", "Checks that fail"}}
	for k, res := range rs {
		rows = append(rows, []string{label(stages, k), fmt.Sprintf("%d of %d", res.Score, res.MaxScore), checkList(res.Failed())})
	}
	return rows
}

// keyTable states every starter's score after each stage. The failing
// checks are listed once when the starters agree, else per language.
func keyTable(stages []stage, results map[string][]*grading.Result) [][]string {
	head := []string{"Stage"}
	for _, lang := range languages {
		head = append(head, lang.name)
	}
	rows := [][]string{append(head, "Checks that fail")}
	for k := range results[languages[0].dir] {
		row := []string{label(stages, k)}
		var lists []string
		same := true
		for _, lang := range languages {
			res := results[lang.dir][k]
			row = append(row, fmt.Sprintf("%d/%d", res.Score, res.MaxScore))
			lists = append(lists, checkList(res.Failed()))
			same = same && lists[len(lists)-1] == lists[0]
		}
		if same {
			row = append(row, lists[0])
		} else {
			var each []string
			for i, lang := range languages {
				each = append(each, lang.name+": "+lists[i])
			}
			row = append(row, strings.Join(each, "; "))
		}
		rows = append(rows, row)
	}
	return rows
}

func checkList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return "`" + strings.Join(ids, "`, `") + "`"
}

// A docTable is a generated table in a Markdown file, between the lines
// "<!-- scores: NAME -->" and "<!-- end of scores -->", with the rows the
// grader's results call for.
type docTable struct {
	path, name string
	rows       [][]string
}

const endMarker = "<!-- end of scores -->"

func (d docTable) startMarker() string { return "<!-- scores: " + d.name + " -->" }

// find returns the file and the byte offsets of the text between the
// table's markers.
func (d docTable) find() (text string, start, end int, err error) {
	data, err := os.ReadFile(d.path)
	if err != nil {
		return "", 0, 0, err
	}
	text = string(data)
	at := strings.Index(text, d.startMarker()+"\n")
	if at < 0 {
		return "", 0, 0, fmt.Errorf("%s has no line %q", d.path, d.startMarker())
	}
	start = at + len(d.startMarker()) + 1
	n := strings.Index(text[start:], endMarker)
	if n < 0 {
		return "", 0, 0, fmt.Errorf("%s: the table %q has no line %q after it", d.path, d.name, endMarker)
	}
	return text, start, start + n, nil
}

func (d docTable) write() error {
	text, start, end, err := d.find()
	if err != nil {
		return err
	}
	text = text[:start] + render(d.rows) + text[end:]
	return os.WriteFile(d.path, []byte(text), 0o644)
}

// problems compares the table in the file, cell by cell, with the grader's,
// and says where they differ.
func (d docTable) problems() []string {
	text, start, end, err := d.find()
	if err != nil {
		return []string{err.Error()}
	}
	stated := parseTable(text[start:end])
	fix := "If the grader is right, rewrite the tables with `go test ./lessons/01-reading-messages/starter -update` and check the words around them."
	if len(stated) != len(d.rows) {
		return []string{fmt.Sprintf("%s, table %q: it has %d rows, the grader's results %d. %s The grader's table:\n%s", d.path, d.name, len(stated), len(d.rows), fix, render(d.rows))}
	}
	var out []string
	for i, row := range d.rows {
		if len(stated[i]) != len(row) {
			out = append(out, fmt.Sprintf("%s, table %q, row %d: it has %d columns, want %d. %s", d.path, d.name, i+1, len(stated[i]), len(row), fix))
			continue
		}
		for j := range row {
			if stated[i][j] != row[j] {
				out = append(out, fmt.Sprintf("%s, table %q, row %q, column %q: the file says %q, the grader gives %q. %s", d.path, d.name, row[0], d.rows[0][j], stated[i][j], row[j], fix))
			}
		}
	}
	return out
}

// parseTable reads the rows of a Markdown table, skipping the line under
// the header.
func parseTable(text string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
		var cells []string
		for _, c := range strings.Split(line, "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue // the line under the header
		}
		rows = append(rows, cells)
	}
	return rows
}

func render(rows [][]string) string {
	var b strings.Builder
	for i, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		if i == 0 {
			var rule []string
			for _, h := range row {
				rule = append(rule, strings.Repeat("-", len(h)))
			}
			b.WriteString("|-" + strings.Join(rule, "-|-") + "-|\n")
		}
	}
	return b.String()
}

// TestDocTable checks the table plumbing on a small file: a table written
// by write reads back as its rows, and a changed cell is reported by row and
// column.
func TestDocTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	doc := "# Title\n\nBefore.\n\n<!-- scores: shipped -->\nold\n<!-- end of scores -->\n\nAfter.\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	d := docTable{path: path, name: "shipped", rows: [][]string{{"Check", "As shipped"}, {"`a.b`", "passes, 1 of 1 point"}, {"**Score**", "**1 of 1**"}}}
	if p := d.problems(); len(p) != 1 || !strings.Contains(p[0], "it has 0 rows, the grader's results 3") {
		t.Errorf("before writing: problems %q", p)
	}
	if err := d.write(); err != nil {
		t.Fatal(err)
	}
	if p := d.problems(); len(p) != 0 {
		t.Errorf("after writing: problems %q", p)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "# Title\n\nBefore.\n\n<!-- scores: shipped -->\n| Check |") || !strings.HasSuffix(string(data), "<!-- end of scores -->\n\nAfter.\n") {
		t.Errorf("write touched more than the table:\n%s", data)
	}
	d.rows[1][1] = "fails, 0 of 1 point"
	p := d.problems()
	if len(p) != 1 || !strings.Contains(p[0], "row \"`a.b`\", column \"As shipped\": the file says \"passes, 1 of 1 point\", the grader gives \"fails, 0 of 1 point\"") {
		t.Errorf("after a change: problems %q", p)
	}
	if p := (docTable{path: path, name: "stages"}).problems(); len(p) != 1 || !strings.Contains(p[0], `has no line "<!-- scores: stages -->"`) {
		t.Errorf("a missing table: problems %q", p)
	}
}
