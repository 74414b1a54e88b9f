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
// the part's number: "TODO(lesson 3), part 3: pagination." and any later
// line of that part belong to it.
var todoPart = regexp.MustCompile(`TODO\(lesson 3\), part (\d+)\b`)

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
		got := todoFixes(string(src))
		for part := 1; part <= len(partNames); part++ {
			ids := byPart[part]
			sort.Strings(ids)
			fixes, ok := got[part]
			switch {
			case !ok:
				t.Errorf("%s/%s has no TODO for part %d (%s)", l.dir, l.source, part, partNames[part-1])
			case !slices.Equal(fixes, ids):
				t.Errorf("%s/%s: the TODO of part %d says it fixes %s; README.md's table, which the grader is held to, says %s",
					l.dir, l.source, part, listOrNone(fixes), listOrNone(ids))
			}
		}
		for part := range got {
			if part < 1 || part > len(partNames) {
				t.Errorf("%s/%s has a TODO for part %d; the parts are 1 to %d", l.dir, l.source, part, len(partNames))
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
