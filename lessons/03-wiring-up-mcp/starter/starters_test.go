package starter_test

// This file grades the starters with the lab's grader (`lab grade --lesson
// 3`): as shipped, each passes exactly the checks README.md's table says it
// passes; after each part of its solution in stages/, exactly the checks
// that part and the ones before fix pass too, and the score is the one the
// README gives.

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/testkit"
)

// timeScale stretches the grader's deadlines. This test is about which
// checks a starter passes, not how fast it starts: on a machine whose two
// cores run many jobs at once, an interpreter can take seconds to start.
const timeScale = 2

// compare checks a grade against README.md's tables after `parts` parts:
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
		if c.Status == grading.StatusPass {
			passed = append(passed, c.ID)
		}
		if ok && part <= parts {
			wantPassed = append(wantPassed, c.ID)
		}
		if pass := c.Status == grading.StatusPass; ok && pass != (part <= parts) {
			t.Logf("%s: %s", c.ID, c.Message)
		}
		// As shipped, the table says what the grader prints: PASS, FAIL,
		// or SKIP for a check it could not see.
		if shown := strings.ToUpper(string(c.Status)); ok && parts == 0 && shown != want.shipped[c.ID] {
			t.Errorf("%s: %s is %s, README.md's table says %s: %s", what, c.ID, shown, want.shipped[c.ID], c.Message)
		}
	}
	for id := range want.fixedBy {
		if !slices.ContainsFunc(res.Checks, func(c grading.CheckResult) bool { return c.ID == id }) {
			t.Errorf("README.md's table names %s, which lesson 3's grader does not check", id)
		}
	}
	if !slices.Equal(passed, wantPassed) {
		t.Errorf("%s passes %v, README.md says %v", what, passed, wantPassed)
	}
	if score := fmt.Sprintf("%d/%d", res.Score, res.MaxScore); score != want.scores[parts] {
		t.Errorf("%s scores %s, README.md's scores table says %s", what, score, want.scores[parts])
	}
}

// TestGradesAsShipped grades each starter as it is.
func TestGradesAsShipped(t *testing.T) {
	want := readREADME(t)
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			compare(t, "the "+l.name+" starter as shipped", 0, want, gradeStarter(t, l, 0))
		})
	}
}

// TestGradesAfterEachPart applies the parts in stages/ one after another
// and grades each result: every part fixes the checks the table says it
// fixes, and breaks none.
func TestGradesAfterEachPart(t *testing.T) {
	if testing.Short() {
		t.Skip("grading fifteen clients takes minutes; not in -short mode")
	}
	want := readREADME(t)
	// Every grade was started at once, as shipped and after each part
	// (see startGrades): each subtest waits for its own.
	for _, l := range languages {
		for parts := 1; parts <= len(partNames); parts++ {
			t.Run(fmt.Sprintf("%s/part%d", l.name, parts), func(t *testing.T) {
				t.Parallel()
				compare(t, fmt.Sprintf("the %s starter after part %d", l.name, parts), parts, want, gradeStarter(t, l, parts))
			})
		}
	}
}

// readme is what README.md's two tables say: for each check id, 0 when the
// starters pass it as shipped, else the part that fixes it, and what the
// grader prints for it as shipped (PASS, FAIL or SKIP); and the score
// after each number of parts.
type readme struct {
	fixedBy map[string]int
	shipped map[string]string
	scores  []string
}

// readREADME reads the tables under the headers "| Check | As shipped |
// Fixed by |" and "| After | Score |".
func readREADME(t *testing.T) readme {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	r := readme{fixedBy: map[string]int{}, shipped: map[string]string{}}
	for _, row := range tableRows(t, string(b), "| Check | As shipped | Fixed by |") {
		id := strings.Trim(row[0], "`")
		part, err := strconv.Atoi(strings.TrimPrefix(row[2], "part "))
		shown := ""
		if len(row) == 3 {
			shown, _, _ = strings.Cut(row[1], " ")
			shown = strings.Trim(shown, "`")
		}
		switch {
		case shown == "PASS" && row[2] == "":
			r.fixedBy[id] = 0
		case (shown == "FAIL" || shown == "SKIP") && err == nil && part >= 1 && part <= len(partNames):
			r.fixedBy[id] = part
		default:
			t.Fatalf("README.md: the row of %s is %q; want PASS and nothing, or FAIL or SKIP and part 1 to %d", id, row, len(partNames))
		}
		r.shipped[id] = shown
	}
	for i, row := range tableRows(t, string(b), "| After | Score |") {
		label := "as shipped"
		if i > 0 {
			label = fmt.Sprintf("part %d", i)
		}
		if len(row) != 2 || row[0] != label {
			t.Fatalf("README.md: row %d of the scores table is %q, want %q and a score", i+1, row, label)
		}
		r.scores = append(r.scores, strings.Trim(row[1], "*"))
	}
	if len(r.scores) != len(partNames)+1 {
		t.Fatalf("README.md: the scores table has %d rows, want %d", len(r.scores), len(partNames)+1)
	}
	return r
}

// tableRows returns the cells of the markdown table under header, without
// its delimiter row.
func tableRows(t *testing.T, doc, header string) [][]string {
	t.Helper()
	rows, err := testkit.TableRows(doc, header)
	if err != nil {
		t.Fatalf("README.md has %v", err)
	}
	return rows
}
