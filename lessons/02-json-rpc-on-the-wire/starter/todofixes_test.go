package starter_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// todoPart is the first line of a TODO part in a starter's source, with
// the part's number: "TODO(lesson 2), part 3: tools." and "TODO(lesson 2),
// part 1, continued: a null id." both belong to their part.
var todoPart = regexp.MustCompile(`TODO\(lesson 2\), part (\d+)\b`)

// fixesList is the sentence of a TODO that names the checks it fixes:
// "Fixes a, b and c." The list ends at a bracket, a colon or the first
// full stop that ends a sentence (a check id's own dots are followed by a
// letter).
var fixesList = regexp.MustCompile(`\bFixes (.*?)(?:\s*\(|:\s|\.(?:\s|$))`)

// todoFixes reads the source of a starter and returns, for each TODO part,
// the sorted check ids its "Fixes" sentences name. A TODO is the marker's
// comment line and the comment lines right after it.
func todoFixes(source string) map[int][]string {
	fixes := map[int][]string{}
	lines := strings.Split(source, "\n")
	for i := 0; i < len(lines); i++ {
		m := todoPart.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		part, _ := strconv.Atoi(m[1])
		var text []string
		for j := i; j < len(lines); j++ {
			line := strings.TrimSpace(lines[j])
			body, ok := strings.CutPrefix(line, "//")
			if !ok {
				body, ok = strings.CutPrefix(line, "#")
			}
			if !ok {
				break
			}
			text = append(text, strings.TrimSpace(body))
			i = j
		}
		for _, f := range fixesList.FindAllStringSubmatch(strings.Join(text, " "), -1) {
			list := strings.ReplaceAll(f[1], " and ", ", ")
			for _, id := range strings.Split(list, ",") {
				fixes[part] = append(fixes[part], strings.TrimSpace(id))
			}
		}
		if _, ok := fixes[part]; !ok {
			fixes[part] = nil
		}
	}
	for part := range fixes {
		sort.Strings(fixes[part])
	}
	return fixes
}

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
		got := todoFixes(string(src))
		for part := 1; part <= len(partNames); part++ {
			ids := byPart[part]
			sort.Strings(ids)
			fixes, ok := got[part]
			switch {
			case !ok:
				t.Errorf("%s/%s has no TODO for part %d (%s)", l.dir, sourceOf(l), part, partNames[part-1])
			case !slices.Equal(fixes, ids):
				t.Errorf("%s/%s: the TODO of part %d says it fixes %s; README.md's table, which the grader is held to, says %s",
					l.dir, sourceOf(l), part, listOrNone(fixes), listOrNone(ids))
			}
		}
		for part := range got {
			if part < 1 || part > len(partNames) {
				t.Errorf("%s/%s has a TODO for part %d; the parts are 1 to %d", l.dir, sourceOf(l), part, len(partNames))
			}
		}
	}
}

// listOrNone joins ids for a message.
func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
