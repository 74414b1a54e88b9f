// Package starter_test grades lesson 4's starters in Go, Python and
// JavaScript with the lab's grader (`lab grade --lesson 4`): as shipped,
// each passes exactly the checks starter/README.md's table says it passes;
// after each part of its solution in stages/, exactly the checks that part
// and the ones before it fix pass too, and the score is the one the README
// gives. Each starter is graded once per stage, and every assertion about
// that stage reads the one grade.
package starter_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"
)

// A language is one starter: its folder, the file of its HTTP side, and
// how to start it.
type language struct {
	name, dir string
	// tool runs source; "" for Go, which is built first.
	tool, source string
	// core is the file of the help desk itself.
	core string
}

var languages = []language{
	{name: "Go", dir: "go", source: "main.go", core: "helpdesk.go"},
	{name: "Python", dir: "python", tool: "python3", source: "server.py", core: "helpdesk.py"},
	{name: "JavaScript", dir: "javascript", tool: "node", source: "server.js", core: "helpdesk.js"},
}

// partNames are the TODO parts of every starter, by number.
var partNames = []string{"status", "headers", "origin", "bounds", "stateless", "sigterm"}

// timeScale stretches the grader's deadlines. This test is about which
// checks a starter passes, not how fast it starts: with the grades of
// every stage running at once on two cores, an interpreter may take
// seconds to start listening.
const timeScale = 4

// concurrentGrades bounds the grades running at once. A grade mostly
// waits (for a copy to start, for one to exit after SIGTERM), so several
// share two cores well.
const concurrentGrades = 6

// stageKey names a starter after some parts.
type stageKey struct {
	lang  string
	parts int
}

// pendingGrade is one grade, running or done.
type pendingGrade struct {
	done chan struct{}
	res  *grading.Result
	skip string
	err  error
}

var (
	gradesOnce sync.Once
	grades     map[stageKey]*pendingGrade
)

// startGrades starts every grade the tests compare, the first time it is
// called: each starter as shipped and after each part (in -short mode, as
// shipped only), at most concurrentGrades at a time.
func startGrades(t *testing.T) {
	gradesOnce.Do(func() {
		grades = map[stageKey]*pendingGrade{}
		last := len(partNames)
		if testing.Short() {
			last = 0
		}
		root, err := os.MkdirTemp("", "lesson4-starters-")
		if err != nil {
			t.Fatalf("making a folder for the staged starters: %v", err)
		}
		slots := make(chan struct{}, concurrentGrades)
		var all sync.WaitGroup
		for _, l := range languages {
			for parts := 0; parts <= last; parts++ {
				g := &pendingGrade{done: make(chan struct{})}
				grades[stageKey{l.name, parts}] = g
				all.Add(1)
				go func() {
					defer all.Done()
					defer close(g.done)
					slots <- struct{}{}
					defer func() { <-slots }()
					g.res, g.skip, g.err = l.stageAndGrade(root, parts)
				}()
			}
		}
		go func() {
			all.Wait()
			os.RemoveAll(root)
		}()
	})
}

// gradeOf is the grade of l after parts parts, once it is done.
func gradeOf(t *testing.T, l language, parts int) *grading.Result {
	t.Helper()
	startGrades(t)
	g := grades[stageKey{l.name, parts}]
	if g == nil {
		t.Fatalf("the %s starter after %d part(s) is not among the grades started (in -short mode only the starters as shipped are graded)", l.name, parts)
	}
	<-g.done
	if g.skip != "" {
		t.Skip(g.skip)
	}
	if g.err != nil {
		t.Fatalf("the %s starter after %d part(s): %v", l.name, parts, g.err)
	}
	return g.res
}

// stageAndGrade copies the starter into a folder of root, applies the
// first parts diffs of stages/, and grades it with lesson 4's checks. It
// returns why it cannot run here (skip) when a tool is missing.
func (l language) stageAndGrade(root string, parts int) (*grading.Result, string, error) {
	dir, err := os.MkdirTemp(root, fmt.Sprintf("%s-%d-", l.dir, parts))
	if err != nil {
		return nil, "", err
	}
	if out, err := exec.Command("cp", "-R", l.dir+"/.", dir).CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("copying the starter: %v\n%s", err, out)
	}
	if parts > 0 {
		if _, err := exec.LookPath("patch"); err != nil {
			return nil, "patch is not on PATH, so the stages are not applied here", nil
		}
	}
	diffs, err := l.diffs()
	if err != nil {
		return nil, "", err
	}
	for _, diff := range diffs[:parts] {
		if out, err := exec.Command("patch", "--batch", "-p0", "-d", dir, "-i", diff).CombinedOutput(); err != nil {
			return nil, "", fmt.Errorf("applying %s: %v\n%s", filepath.Base(diff), err, out)
		}
	}
	for part := 1; part <= len(partNames); part++ {
		todo, err := l.hasTODO(dir, part)
		if err != nil {
			return nil, "", err
		}
		if todo != (part > parts) {
			return nil, "", fmt.Errorf("after %d part(s), the source %s \"TODO(lesson 4), part %d\"", parts, map[bool]string{true: "still holds", false: "no longer holds"}[todo], part)
		}
	}
	cmd, skip, err := l.command(dir)
	if skip != "" || err != nil {
		return nil, skip, err
	}
	res, err := kinds.Grade(context.Background(), grading.Options{Lesson: 4, Student: cmd, TimeScale: timeScale})
	if err != nil {
		return nil, "", fmt.Errorf("grading: %w", err)
	}
	if !res.Gradable {
		return nil, "", fmt.Errorf("the grader could not grade it: %s", res.Problem)
	}
	return res, "", nil
}

// diffs are the absolute paths of l's stage diffs, in order: one a part.
func (l language) diffs() ([]string, error) {
	diffs, err := filepath.Glob(filepath.Join("stages", l.dir, "*.diff"))
	if err != nil || len(diffs) != len(partNames) {
		return nil, fmt.Errorf("stages/%s holds %d diffs (%v), want one for each of the %d parts", l.dir, len(diffs), err, len(partNames))
	}
	sort.Strings(diffs)
	for i, d := range diffs {
		if want := fmt.Sprintf("%d-%s.diff", i+1, partNames[i]); filepath.Base(d) != want {
			return nil, fmt.Errorf("stages/%s: diff %d is %s, want %s", l.dir, i+1, filepath.Base(d), want)
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		diffs[i] = abs
	}
	return diffs, nil
}

// hasTODO says whether the starter in dir still marks part.
func (l language) hasTODO(dir string, part int) (bool, error) {
	marker := []byte(fmt.Sprintf("TODO(lesson 4), part %d", part))
	for _, f := range []string{l.source, l.core} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return false, err
		}
		if bytes.Contains(b, marker) {
			return true, nil
		}
	}
	return false, nil
}

// command is how the grader starts the starter in dir, building it first
// when it is the Go one. skip says why it cannot run here: CI has go,
// python3 and node.
func (l language) command(dir string) (proc.Command, string, error) {
	if l.tool == "" {
		bin := filepath.Join(dir, "starter-server")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return proc.Command{}, "", fmt.Errorf("building the Go starter: %v\n%s", err, out)
		}
		return proc.Command{Path: bin, Dir: dir}, "", nil
	}
	path, err := exec.LookPath(l.tool)
	if err != nil {
		return proc.Command{}, fmt.Sprintf("%s is not on PATH, so the %s starter is not checked here", l.tool, l.name), nil
	}
	if l.tool == "node" {
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			return proc.Command{}, "", fmt.Errorf("node --version: %w", err)
		}
		v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
		if major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0]); major < 18 {
			return proc.Command{}, fmt.Sprintf("node is v%s; the JavaScript starter needs Node 18 or later", v), nil
		}
	}
	return proc.Command{Path: path, Args: []string{l.source}, Dir: dir}, "", nil
}

// compare checks a grade against README.md's tables after parts parts:
// the checks that pass are exactly those passing from the start or fixed
// by one of the parts done, and the score is the scores table's.
func compare(t *testing.T, what string, parts int, want readme, res *grading.Result) {
	t.Helper()
	var passed, wantPassed []string
	for _, c := range res.Checks {
		part, ok := want.fixedBy[c.ID]
		if !ok {
			t.Errorf("check %s is not in README.md's table", c.ID)
		}
		pass := c.Status == grading.StatusPass
		if pass {
			passed = append(passed, c.ID)
		}
		if ok && part <= parts {
			wantPassed = append(wantPassed, c.ID)
		}
		if ok && pass != (part <= parts) {
			t.Logf("%s: %s is %s: %s", what, c.ID, c.Status, c.Message)
		}
	}
	for id := range want.fixedBy {
		if !slices.ContainsFunc(res.Checks, func(c grading.CheckResult) bool { return c.ID == id }) {
			t.Errorf("README.md's table names %s, which lesson 4's grader does not check", id)
		}
	}
	if !slices.Equal(passed, wantPassed) {
		t.Errorf("%s passes %v, README.md says %v", what, passed, wantPassed)
	}
	if score := fmt.Sprintf("%d/%d", res.Score, res.MaxScore); score != want.scores[parts] {
		t.Errorf("%s scores %s, README.md's scores table says %s", what, score, want.scores[parts])
	}
}

// TestStartersAsShipped grades each starter as it is.
func TestStartersAsShipped(t *testing.T) {
	want := readREADME(t)
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			compare(t, "the "+l.name+" starter as shipped", 0, want, gradeOf(t, l, 0))
		})
	}
}

// TestStages grades each starter after each part of stages/, applied one
// after another to a copy: every part fixes exactly the checks the table
// says it fixes, and breaks none.
func TestStages(t *testing.T) {
	if testing.Short() {
		t.Skip("grading eighteen staged servers takes a minute; not in -short mode")
	}
	want := readREADME(t)
	for _, l := range languages {
		for parts := 1; parts <= len(partNames); parts++ {
			t.Run(fmt.Sprintf("%s/part%d", l.name, parts), func(t *testing.T) {
				t.Parallel()
				compare(t, fmt.Sprintf("the %s starter after part %d", l.name, parts), parts, want, gradeOf(t, l, parts))
			})
		}
	}
}

// todoLine is the marker of a starter's TODO, its part's number the group
// testkit.TODOFixes keys the TODO's checks by.
var todoLine = regexp.MustCompile(`TODO\(lesson 4\), part (\d+)`)

// TestTODOsNameTheirChecks reads the "Fixes ..." sentences of every TODO
// of each starter as shipped (testkit.TODOFixes, as lessons 1 to 3 do):
// the checks each part's TODOs name are exactly those README.md's table
// says that part fixes.
func TestTODOsNameTheirChecks(t *testing.T) {
	want := readREADME(t)
	wantByPart := map[int][]string{}
	for id, part := range want.fixedBy {
		if part > 0 {
			wantByPart[part] = append(wantByPart[part], id)
		}
	}
	for _, l := range languages {
		named := map[int][]string{}
		for _, f := range []string{l.source, l.core} {
			b, err := os.ReadFile(filepath.Join(l.dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for key, ids := range testkit.TODOFixes(string(b), todoLine) {
				part, _ := strconv.Atoi(key)
				named[part] = append(named[part], ids...)
			}
		}
		for part := 1; part <= len(partNames); part++ {
			got, exp := slices.Clone(named[part]), slices.Clone(wantByPart[part])
			slices.Sort(got)
			slices.Sort(exp)
			if !slices.Equal(slices.Compact(got), exp) {
				t.Errorf("the %s starter's TODOs of part %d say they fix %v; README.md's table says %v", l.name, part, got, exp)
			}
		}
	}
}

// TestDataIsTheLessons checks that each starter's data files are lesson
// 2's, byte for byte, so the starters never drift from the help desk the
// grader compares them with.
func TestDataIsTheLessons(t *testing.T) {
	for _, name := range []string{"tickets.json", "customers.json"} {
		want, err := os.ReadFile(filepath.Join("..", "..", "02-json-rpc-on-the-wire", "data", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range languages {
			got, err := os.ReadFile(filepath.Join(l.dir, name))
			if err != nil {
				t.Error(err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from lesson 2's data/%s: copy it again", l.dir, name, name)
			}
		}
	}
}

// TestLessonREADMEScores checks that the scores table of the lesson's
// README.md ("Your own server") gives the same figures as the one in
// starter/README.md, which the grades above check.
func TestLessonREADMEScores(t *testing.T) {
	lesson, err := readScores("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	starter, err := readScores("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lesson, starter) {
		t.Errorf("the lesson's README.md gives the scores %q, starter/README.md gives %q: make them agree (the starter's table is the one the grader checks)", lesson, starter)
	}
}

// readme is what the tests read from README.md: for each check id, 0 when
// the starters pass it as shipped, else the part that fixes it; and the
// score after each number of parts, such as "6/22".
type readme struct {
	fixedBy map[string]int
	scores  []string
}

// readREADME reads README.md's two tables, or fails the test.
func readREADME(t *testing.T) readme {
	t.Helper()
	rows, err := tableRows("README.md", "| Check | As shipped | Fixed by |", 3)
	if err != nil {
		t.Fatal(err)
	}
	fixedBy := map[string]int{}
	for _, row := range rows {
		id, shipped, fixed := strings.Trim(row[0], "`"), row[1], row[2]
		part, err := strconv.Atoi(strings.TrimPrefix(fixed, "part "))
		switch {
		case shipped == "passes" && fixed == "":
			fixedBy[id] = 0
		case shipped == "fails" && err == nil && part >= 1 && part <= len(partNames):
			fixedBy[id] = part
		default:
			t.Fatalf("README.md: check %s: %q and %q, want passes and nothing, or fails and part 1 to %d", id, shipped, fixed, len(partNames))
		}
	}
	scores, err := readScores("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return readme{fixedBy: fixedBy, scores: scores}
}

// readScores reads the scores table of file: "as shipped", then "part 1"
// to the last part, in order, each with a score such as "6/22".
func readScores(file string) ([]string, error) {
	rows, err := tableRows(file, "| After | Score |", 2)
	if err != nil {
		return nil, err
	}
	if len(rows) != len(partNames)+1 {
		return nil, fmt.Errorf("%s: the scores table has %d rows, want %d", file, len(rows), len(partNames)+1)
	}
	var scores []string
	for i, row := range rows {
		label := "as shipped"
		if i > 0 {
			label = fmt.Sprintf("part %d", i)
		}
		if row[0] != label {
			return nil, fmt.Errorf("%s: row %d of the scores table is %q, want %q", file, i+1, row[0], label)
		}
		scores = append(scores, strings.Trim(row[1], "*"))
	}
	return scores, nil
}

// tableRows returns the cells of the rows of the Markdown table of file
// under header, delimiter row left out; every row must have n cells.
func tableRows(file, header string, n int) ([][]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	rows, err := testkit.TableRows(string(b), header)
	if err != nil {
		return nil, fmt.Errorf("%s has %v", file, err)
	}
	for _, cells := range rows {
		if len(cells) != n {
			return nil, fmt.Errorf("%s: a row has %d cells, want %d: %q", file, len(cells), n, cells)
		}
	}
	return rows, nil
}
