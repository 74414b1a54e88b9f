package class_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/internal/testkit"
)

// The results folder is made fresh by the grader; anything else at its
// path is refused, except an earlier run's results, which are replaced.
func TestCreateOut(t *testing.T) {
	dir := testkit.OpenDir(t)
	victim := filepath.Join(testkit.OpenDir(t), "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, f func(p string) error) string {
		p := filepath.Join(dir, name)
		if err := f(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	refused := map[string]string{
		"a link":          mk("link", func(p string) error { return os.Symlink(victim, p) }),
		"a dangling link": mk("dangling", func(p string) error { return os.Symlink(filepath.Join(victim, "new"), p) }),
		"a file":          mk("file", func(p string) error { return os.WriteFile(p, nil, 0o644) }),
		"a foreign folder": mk("foreign", func(p string) error {
			return os.Mkdir(p, 0o755)
		}),
		"a folder others may write": mk("open", func(p string) error {
			if err := os.Mkdir(p, 0o777); err != nil {
				return err
			}
			if err := os.Chmod(p, 0o777); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(p, class.OutMarker), nil, 0o644)
		}),
	}
	shared := mk("shared", func(p string) error {
		if err := os.Mkdir(p, 0o777); err != nil {
			return err
		}
		return os.Chmod(p, 0o777) // not sticky: anyone may swap an entry
	})
	refused["under a folder others may write"] = filepath.Join(shared, "results")
	for what, p := range refused {
		if out, err := class.CreateOut(p); err == nil {
			out.Close()
			t.Errorf("%s: CreateOut took it", what)
		}
	}
	if entries, _ := os.ReadDir(victim); len(entries) > 0 {
		t.Errorf("something was made through a link: %v", entries)
	}

	p := filepath.Join(dir, "results")
	out, err := class.CreateOut(p)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("while the grader writes, the folder is %v (%v), want 0700", info.Mode(), err)
	}
	if err := out.WriteFile("grades.csv", []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	// A link in its place is replaced, never written through.
	if err := os.Remove(filepath.Join(p, "grades.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(victim, "pwned"), filepath.Join(p, "grades.csv")); err != nil {
		t.Fatal(err)
	}
	if err := out.WriteFile("grades.csv", []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(p, "grades.csv")); err != nil || string(data) != "two\n" {
		t.Errorf("grades.csv = %q, %v", data, err)
	}
	if _, err := os.Lstat(filepath.Join(victim, "pwned")); err == nil {
		t.Error("the gradebook was written through a link")
	}
	if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("after Close the folder is %v (%v), want 0755", info.Mode(), err)
	}

	// An earlier run's results are replaced whole.
	again, err := class.CreateOut(p)
	if err != nil {
		t.Fatalf("an earlier run's results: %v", err)
	}
	defer again.Close()
	if _, err := os.Stat(filepath.Join(p, "grades.csv")); err == nil {
		t.Error("the earlier run's gradebook is still there")
	}
	if err := again.WriteStudent(&class.Student{Name: "../escape"}, nil); err == nil || !strings.Contains(err.Error(), "cannot be a folder") {
		t.Errorf("a student named ../escape: %v", err)
	}
}
