package lessons_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lessons"
)

// checkTable is one Markdown table whose first column lists check ids.
type checkTable struct {
	file   string
	line   int // of the header row, from 1
	lesson int // from a "<!-- checks: lesson N -->" line just above, or 0
	ids    []string
}

// checksMarker names the lesson a check table of the top README.md is
// about; it stands on the line above the table's header (blank lines
// between are allowed).
var checksMarker = regexp.MustCompile(`^<!-- checks: lesson ([0-9]+) -->$`)

// checkTables finds the tables of a Markdown file whose header row's first
// cell is "check" (in any case), and reads the id of each row: the first
// cell, in backticks (a bold row, such as a total, is not a check).
func checkTables(t *testing.T, file string) []checkTable {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []checkTable
	for i := 0; i+1 < len(lines); i++ {
		head := cells(lines[i])
		if len(head) == 0 || !strings.EqualFold(head[0], "check") || !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "|-") && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "|:") {
			continue
		}
		tb := checkTable{file: file, line: i + 1}
		for k := i - 1; k >= 0; k-- {
			if s := strings.TrimSpace(lines[k]); s != "" {
				if m := checksMarker.FindStringSubmatch(s); m != nil {
					tb.lesson, _ = strconv.Atoi(m[1])
				}
				break
			}
		}
		for j := i + 2; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
			row := cells(lines[j])
			id := row[0]
			if strings.HasPrefix(id, "**") {
				continue // a summary row, such as "**Score**"
			}
			if len(id) < 3 || id[0] != '`' || id[len(id)-1] != '`' {
				t.Errorf("%s:%d: the first cell of a check table's row is %q, want a check id in backticks", file, j+1, id)
				continue
			}
			tb.ids = append(tb.ids, id[1:len(id)-1])
		}
		out = append(out, tb)
	}
	return out
}

// cells splits a Markdown table row into its trimmed cells; nil for a line
// that is not a row.
func cells(line string) []string {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "|") {
		return nil
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "|"), "|")
	parts := strings.Split(s, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// catalogue is a lesson's check ids in the order reports list them,
// loaded the way `lab grade --lesson N` loads them.
func catalogue(t *testing.T, n int) []string {
	t.Helper()
	l, err := kinds.LoadLesson(n, nil)
	if err != nil {
		t.Fatalf("lesson %d: %v", n, err)
	}
	var ids []string
	for _, c := range l.Checks() {
		ids = append(ids, c.ID)
	}
	return ids
}

// sameChecks says how a table's ids differ from a catalogue, "" when they
// are the same ids in the same order.
func sameChecks(got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	var missing, extra []string
	for _, id := range want {
		if !slices.Contains(got, id) {
			missing = append(missing, id)
		}
	}
	for _, id := range got {
		if !slices.Contains(want, id) {
			extra = append(extra, id)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return fmt.Sprintf("the same checks in another order (%s), where reports list them as %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return fmt.Sprintf("%d rows where the grader runs %d checks; missing: %v; not checks of the lesson: %v", len(got), len(want), missing, extra)
}

// TestReadmeCheckTables holds every table of check ids a reader meets to
// the checks the grader runs, id by id and in the reports' order: the top
// README.md has one table per lesson, each marked with
// "<!-- checks: lesson N -->" above it, and every check table inside a
// lesson's folder (its README, a starter's README) lists that lesson's
// checks. Lessons are found by walking lessons/, so a new lesson needs a
// table and a new check needs a row.
func TestReadmeCheckTables(t *testing.T) {
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	byNumber := map[int]*lessons.Manifest{}
	for _, m := range all {
		byNumber[m.Number] = m
	}
	top := filepath.Join("..", "README.md")
	marked := map[int]int{}
	for _, tb := range checkTables(t, top) {
		m := byNumber[tb.lesson]
		switch {
		case tb.lesson == 0:
			t.Errorf("%s:%d: a check table with no \"<!-- checks: lesson N -->\" line above it: say which lesson it lists", tb.file, tb.line)
			continue
		case m == nil:
			t.Errorf("%s:%d: the table is marked for lesson %d, which lessons/ does not hold", tb.file, tb.line, tb.lesson)
			continue
		}
		marked[tb.lesson]++
		if d := sameChecks(tb.ids, catalogue(t, tb.lesson)); d != "" {
			t.Errorf("%s:%d: lesson %d's check table has %s", tb.file, tb.line, tb.lesson, d)
		}
	}
	for _, m := range all {
		if marked[m.Number] != 1 {
			t.Errorf("%s has %d check tables marked for lesson %d (%s), want 1", top, marked[m.Number], m.Number, m.Dir)
		}
	}
	for _, m := range all {
		want := catalogue(t, m.Number)
		err := filepath.WalkDir(m.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			for _, tb := range checkTables(t, p) {
				if d := sameChecks(tb.ids, want); d != "" {
					t.Errorf("%s:%d: a check table of lesson %d has %s", tb.file, tb.line, m.Number, d)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
