// Package starter_test grades lesson 2's starters in Go, Python and
// JavaScript with the lab's grader (`lab grade --lesson 2`): as shipped,
// each passes the checks starter/README.md's table says it passes and fails
// the others; after each part of its solution in stages/, the checks that
// part fixes pass too, and the score is the one the README gives.
package starter_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// A language is one starter: its folder and how to start it.
type language struct {
	name, dir string
	// tool runs source; "" for Go, which is built first.
	tool, source string
}

var languages = []language{
	{name: "Go", dir: "go"},
	{name: "Python", dir: "python", tool: "python3", source: "server.py"},
	{name: "JavaScript", dir: "javascript", tool: "node", source: "server.js"},
}

// command returns the command that starts the starter in dir, run from
// dir, building it first when it is the Go one. It skips the test when the
// language's tool is missing: CI has go, python3 and node.
func (l language) command(t *testing.T, dir string) proc.Command {
	t.Helper()
	if l.tool == "" {
		bin := filepath.Join(t.TempDir(), "starter")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building the Go starter: %v\n%s", err, out)
		}
		return proc.Command{Path: bin, Dir: dir}
	}
	path, err := exec.LookPath(l.tool)
	if err != nil {
		t.Skipf("%s is not on PATH, so the %s starter is not checked here", l.tool, l.name)
	}
	if l.tool == "node" {
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			t.Fatalf("node --version: %v", err)
		}
		v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
		if major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0]); major < 18 {
			t.Skipf("node is v%s; the JavaScript starter needs Node 18 or later", v)
		}
	}
	return proc.Command{Path: path, Args: []string{l.source}, Dir: dir}
}

// timeScale stretches the grader's deadlines. This test is about which
// checks a starter passes, not how fast it starts: on a machine whose two
// cores run many jobs at once, python3 alone took over 4 s to start
// (load average 74), more than lesson 2's deadline for exiting after
// stdin closes.
const timeScale = 4

// grade grades the starter in dir with lesson 2's checks.
func grade(t *testing.T, l language, dir string) *grading.Result {
	t.Helper()
	res, err := kinds.Grade(context.Background(), grading.Options{Lesson: 2, Student: l.command(t, dir), TimeScale: timeScale})
	if err != nil {
		t.Fatalf("grading: %v", err)
	}
	if !res.Gradable {
		t.Fatalf("the grader could not grade it: %s", res.Problem)
	}
	return res
}

// compare checks a grade against the README's tables after the given
// number of parts: a check passes once the part that fixes it is done, and
// from the start when nothing needs fixing; the score is the one the
// scores table gives.
func compare(t *testing.T, what string, parts int, want readme, res *grading.Result) {
	t.Helper()
	seen := map[string]bool{}
	var passed []string
	for _, c := range res.Checks {
		seen[c.ID] = true
		pass := c.Status == grading.StatusPass
		if pass {
			passed = append(passed, c.ID)
		}
		part, ok := want.fixedBy[c.ID]
		switch {
		case !ok:
			t.Errorf("check %s is not in README.md's table", c.ID)
		case part <= parts && !pass:
			t.Errorf("%s: README.md says it passes %s, but it is %s: %s", what, c.ID, c.Status, c.Message)
		case part > parts && pass:
			t.Errorf("%s: README.md says it fails %s until part %d is done, but it passes", what, c.ID, part)
		}
	}
	for id := range want.fixedBy {
		if !seen[id] {
			t.Errorf("README.md's table names %s, which lesson 2's grader does not check", id)
		}
	}
	score := fmt.Sprintf("%d/%d", res.Score, res.MaxScore)
	if want.scores[parts] != score {
		t.Errorf("%s: scores %s, README.md's scores table says %q", what, score, want.scores[parts])
	}
	t.Logf("%s scores %s and passes %d of %d checks: %s", what, score, len(passed), len(res.Checks), strings.Join(passed, ", "))
}

// TestStartersAsShipped grades each starter as it is and compares the
// checks it passes with the tables in starter/README.md.
func TestStartersAsShipped(t *testing.T) {
	want := readREADME(t)
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			compare(t, "the "+l.name+" starter as shipped", 0, want, grade(t, l, l.dir))
		})
	}
}

// TestStages applies the solutions in stages/ to a copy of each starter,
// one part after another, and grades the copy after each: every part must
// fix the checks the table says it fixes, and break none.
func TestStages(t *testing.T) {
	if testing.Short() {
		t.Skip("grading twelve servers takes minutes; not in -short mode")
	}
	want := readREADME(t)
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not on PATH, so the stages are not applied here")
	}
	// All three starters at once, not two at a time as t.Parallel is on
	// two cores: each mostly waits on its grades' deadlines.
	names := make([]string, len(languages))
	for i, l := range languages {
		names[i] = l.name
	}
	testkit.Concurrently(t, len(languages), names, func(t *testing.T, i int) {
		l := languages[i]
		{
			diffs, err := filepath.Glob(filepath.Join("stages", l.dir, "*.diff"))
			if err != nil || len(diffs) != len(partNames) {
				t.Fatalf("stages/%s holds %d diffs (%v), want one for each of the %d parts", l.dir, len(diffs), err, len(partNames))
			}
			sort.Strings(diffs)
			dir := t.TempDir()
			if out, err := exec.Command("cp", "-R", l.dir+"/.", dir).CombinedOutput(); err != nil {
				t.Fatalf("copying the starter: %v\n%s", err, out)
			}
			for i, diff := range diffs {
				abs, err := filepath.Abs(diff)
				if err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command("patch", "--batch", "-p0", "-d", dir, "-i", abs)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("applying %s: %v\n%s", diff, err, out)
				}
				if b, err := os.ReadFile(filepath.Join(dir, sourceOf(l))); err != nil {
					t.Fatal(err)
				} else if marker := fmt.Sprintf("TODO(lesson 2), part %d", i+1); bytes.Contains(b, []byte(marker)) {
					t.Errorf("%s leaves %q in the source", diff, marker)
				}
				compare(t, fmt.Sprintf("the %s starter after %s", l.name, filepath.Base(diff)), i+1, want, grade(t, l, dir))
			}
		}
	})
}

// sourceOf names the file that holds a starter's TODOs.
func sourceOf(l language) string {
	if l.source == "" {
		return "main.go"
	}
	return l.source
}

// TestTicketsAreTheLessons checks that each starter's tickets.json is the
// lesson's data, byte for byte, so the starters never drift from it.
func TestTicketsAreTheLessons(t *testing.T) {
	want, err := os.ReadFile("../data/tickets.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range languages {
		got, err := os.ReadFile(filepath.Join(l.dir, "tickets.json"))
		if err != nil {
			t.Error(err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/tickets.json differs from ../data/tickets.json: copy it again", l.dir)
		}
	}
}

// shippedHeader is the header of the table in README.md that says which
// checks the starters pass as shipped, and which part fixes each other one.
const shippedHeader = "| Check | As shipped | Fixed by |"

// partNames are the TODO parts of every starter, by number.
var partNames = []string{"errors without an id", "_meta on every request", "tools", "legacy clients"}

// scoresHeader is the header of the table in README.md that gives the
// score as shipped and after each part.
const scoresHeader = "| After | Score |"

// readme is what the tests read from README.md: for each check id, 0 when
// the starters pass it as shipped, else the part that fixes it; and the
// score after each number of parts, such as "10/25".
type readme struct {
	fixedBy map[string]int
	scores  []string
}

// readREADME reads README.md's two tables, or fails the test.
func readREADME(t *testing.T) readme {
	t.Helper()
	fixedBy, err := readShippedTable("README.md")
	if err != nil {
		t.Fatal(err)
	}
	scores, err := readScores("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return readme{fixedBy: fixedBy, scores: scores}
}

// readScores reads the scores table: "as shipped", then "part 1" to the
// last part, in order, each with a score such as "10/25".
func readScores(file string) ([]string, error) {
	rows, err := tableRows(file, scoresHeader, 2)
	if err != nil {
		return nil, err
	}
	if len(rows) != len(partNames)+1 {
		return nil, fmt.Errorf("%s: the scores table has %d rows, want %d", file, len(rows), len(partNames)+1)
	}
	var scores []string
	for i, row := range rows {
		want := "as shipped"
		if i > 0 {
			want = fmt.Sprintf("part %d", i)
		}
		if row[0] != want {
			return nil, fmt.Errorf("%s: row %d of the scores table is %q, want %q", file, i+1, row[0], want)
		}
		scores = append(scores, strings.Trim(row[1], "*"))
	}
	return scores, nil
}

// tableRows returns the cells of the rows of the markdown table of file
// whose header line is header, delimiter row left out. Every row must have
// n cells.
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

// readShippedTable reads that table: for each check id, 0 when the
// starters pass it as shipped, else the number of the part that fixes it.
func readShippedTable(file string) (map[string]int, error) {
	rows, err := tableRows(file, shippedHeader, 3)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, row := range rows {
		id, shipped, fixedBy := strings.Trim(row[0], "`"), row[1], row[2]
		part, err := strconv.Atoi(strings.TrimPrefix(fixedBy, "part "))
		switch {
		case shipped == "passes" && fixedBy == "":
			out[id] = 0
		case shipped == "fails" && err == nil && part >= 1 && part <= len(partNames):
			out[id] = part
		default:
			return nil, fmt.Errorf("%s: check %s: %q and %q, want passes and nothing, or fails and part 1 to %d", file, id, shipped, fixedBy, len(partNames))
		}
	}
	return out, nil
}
