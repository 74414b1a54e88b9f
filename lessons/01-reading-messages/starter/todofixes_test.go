package starter_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/testkit"
)

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
		todos := testkit.TODOFixes(string(src), todoMarker)
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
					lang.dir, lang.source, st[k-1].todo, testkit.ListOrNone(said), testkit.ListOrNone(turned))
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
