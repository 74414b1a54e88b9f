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
// the part's number: "TODO(lesson 2), part 3: tools." and "TODO(lesson 2),
// part 1, continued: a null id." both belong to their part.
var todoPart = regexp.MustCompile(`TODO\(lesson 2\), part (\d+)\b`)

// TestTODOsNameTheChecksTheirPartFixes reads the TODOs of every starter:
// the checks the "Fixes" sentences of part N name are exactly the checks
// README.md's table says part N fixes. TestStartersAsShipped and
// TestStages grade each starter before and after each part against that
// same table, so a TODO's list is what its stage turns from fail to pass,
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
		src, err := os.ReadFile(filepath.Join(l.dir, sourceOf(l)))
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
				t.Errorf("%s/%s has no TODO for part %d (%s)", l.dir, sourceOf(l), part, partNames[part-1])
			case !slices.Equal(fixes, ids):
				t.Errorf("%s/%s: the TODO of part %d says it fixes %s; README.md's table, which the grader is held to, says %s",
					l.dir, sourceOf(l), part, testkit.ListOrNone(fixes), testkit.ListOrNone(ids))
			}
		}
		for key := range got {
			if part, _ := strconv.Atoi(key); part < 1 || part > len(partNames) {
				t.Errorf("%s/%s has a TODO for part %s; the parts are 1 to %d", l.dir, sourceOf(l), key, len(partNames))
			}
		}
	}
}
