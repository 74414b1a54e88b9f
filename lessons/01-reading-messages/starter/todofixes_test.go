package starter_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
)

// fixesList is the sentence of a TODO that names the checks it fixes:
// "Fixes a, b and c." The list ends at a bracket, a colon or the first
// full stop that ends a sentence (a check id's own dots are followed by a
// letter).
var fixesList = regexp.MustCompile(`\bFixes (.*?)(?:\s*\(|:\s|\.(?:\s|$))`)

// todoFixes reads the source of a starter and returns, for each TODO (by
// the name its marker gives, "framing"), the sorted check ids its "Fixes"
// sentence names. A TODO is the marker's comment line and the comment
// lines right after it.
func todoFixes(source string) map[string][]string {
	fixes := map[string][]string{}
	lines := strings.Split(source, "\n")
	for i := 0; i < len(lines); i++ {
		m := todoMarker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
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
		ids := []string{}
		for _, f := range fixesList.FindAllStringSubmatch(strings.Join(text, " "), -1) {
			for _, id := range strings.Split(strings.ReplaceAll(f[1], " and ", ", "), ",") {
				ids = append(ids, strings.TrimSpace(id))
			}
		}
		sort.Strings(ids)
		fixes[m[1]] = ids
	}
	return fixes
}

// checkTODOFixes compares, for every graded starter, each TODO's "Fixes"
// list with the checks its stage turned from fail to pass in this run's
// grades: what a TODO promises is what doing it earns. It grades nothing
// itself; TestStarters hands it the grades it made.
func checkTODOFixes(t *testing.T, results map[string][]*grading.Result, stages map[string][]stage) {
	t.Helper()
	for _, lang := range languages {
		rs, st := results[lang.dir], stages[lang.dir]
		if len(rs) != len(st)+1 || slices.Contains(rs, nil) {
			continue // not graded here (its interpreter is missing)
		}
		src, err := os.ReadFile(filepath.Join(lang.dir, lang.source))
		if err != nil {
			t.Fatal(err)
		}
		todos := todoFixes(string(src))
		for k := 1; k <= len(st); k++ {
			before, after := statuses(rs[k-1]), statuses(rs[k])
			var turned []string
			for id, s := range after {
				if s == grading.StatusPass && before[id] != grading.StatusPass {
					turned = append(turned, id)
				}
			}
			sort.Strings(turned)
			said, ok := todos[st[k-1].todo]
			switch {
			case !ok:
				t.Errorf("%s/%s has no TODO(lesson 1): %s., which %s solves", lang.dir, lang.source, st[k-1].todo, st[k-1].path)
			case !slices.Equal(said, turned):
				t.Errorf("%s/%s: the TODO %q says it fixes %s; done, it turned %s from fail to pass",
					lang.dir, lang.source, st[k-1].todo, listOrNone(said), listOrNone(turned))
			}
		}
	}
}

// statuses maps each check of a grade to its status.
func statuses(res *grading.Result) map[string]grading.Status {
	out := map[string]grading.Status{}
	for _, c := range res.Checks {
		out[c.ID] = c.Status
	}
	return out
}

// listOrNone joins ids for a message.
func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

// TestTODOFixesParse reads the Fixes lists of a small source.
func TestTODOFixesParse(t *testing.T) {
	src := "\t// TODO(lesson 1): framing.\n\t// Keep a buffer.\n\t// Fixes a.b, c.d and e.f: because\n\t// of chunks.\n\tx := 1\n" +
		"# TODO(lesson 1): parse errors.\n# Fixes errors.parse.\n"
	got := todoFixes(src)
	if want := []string{"a.b", "c.d", "e.f"}; !slices.Equal(got["framing"], want) {
		t.Errorf("framing: %q, want %q", got["framing"], want)
	}
	if want := []string{"errors.parse"}; !slices.Equal(got["parse errors"], want) {
		t.Errorf("parse errors: %q, want %q", got["parse errors"], want)
	}
}
