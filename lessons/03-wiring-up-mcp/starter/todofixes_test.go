package starter_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
)

// todoPart is the first line of a TODO part in a starter's source, with
// the part's number: "TODO(lesson 3), part 3: pagination." and any later
// line of that part belong to it.
var todoPart = regexp.MustCompile(`TODO\(lesson 3\), part (\d+)\b`)

// TestTODOsNameTheChecksTheirPartFixes reads the TODOs of every starter:
// the checks the "Fixes" sentences of part N name are exactly the checks
// README.md's table says part N fixes. TestGradesAsShipped and
// TestGradesAfterEachPart grade each starter before and after each part
// against that same table, so a TODO's list is what its stage turns from fail to pass,
// and a student who does what a TODO says gets the score the table gives.
func TestTODOsNameTheChecksTheirPartFixes(t *testing.T) {
	want := readREADME(t)
	byPart := map[int][]string{}
	for id, part := range want.fixedBy {
		if part > 0 {
			byPart[part] = append(byPart[part], id)
		}
	}
	for _, l := range languages {
		src, err := os.ReadFile(filepath.Join(l.dir, l.source))
		if err != nil {
			t.Fatal(err)
		}
		got := testkit.TODOFixes(string(src), todoPart)
		for part := 1; part <= len(partNames); part++ {
			ids := byPart[part]
			sort.Strings(ids)
			fixes, ok := got[strconv.Itoa(part)]
			switch {
			case !ok:
				t.Errorf("%s/%s has no TODO for part %d (%s)", l.dir, l.source, part, partNames[part-1])
			case !slices.Equal(fixes, ids):
				t.Errorf("%s/%s: the TODO of part %d says it fixes %s; README.md's table, which the grader is held to, says %s",
					l.dir, l.source, part, testkit.ListOrNone(fixes), testkit.ListOrNone(ids))
			}
		}
		for key := range got {
			if part, _ := strconv.Atoi(key); part < 1 || part > len(partNames) {
				t.Errorf("%s/%s has a TODO for part %s; the parts are 1 to %d", l.dir, l.source, key, len(partNames))
			}
		}
	}
}

// keyScore is a heading of the teacher's key that states a score:
// "## As shipped: 4 of 14" or "## After part 5: 14 of 14".
var keyScore = regexp.MustCompile(`(?m)^## (?:As shipped|After part (\d+)): (\d+) of (\d+)$`)

// TestTeacherKeyScores checks each score the teacher's key states in a
// heading against the starters' scores table, which the grader is held to.
func TestTeacherKeyScores(t *testing.T) {
	want := readREADME(t)
	b, err := os.ReadFile("../teacher-key.md")
	if err != nil {
		t.Fatal(err)
	}
	found := keyScore.FindAllStringSubmatch(string(b), -1)
	if len(found) == 0 {
		t.Fatal(`the teacher's key states no score in a heading ("## As shipped: N of 14")`)
	}
	for _, m := range found {
		part := 0
		if m[1] != "" {
			part, _ = strconv.Atoi(m[1])
		}
		if part >= len(want.scores) {
			t.Errorf("the teacher's key has %q, and there is no part %d", m[0], part)
			continue
		}
		if got := m[2] + "/" + m[3]; got != want.scores[part] {
			t.Errorf("the teacher's key has %q; the starters' scores table gives %s", m[0], want.scores[part])
		}
	}
}
