package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGradeOutRefusedBeforeGrading: a report path that cannot be written
// (no such folder, a link) is refused with exit 2 before the server is
// ever started, and nothing is written through a link.
func TestGradeOutRefusedBeforeGrading(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	// The "server" leaves a mark if it is ever run: it must not be.
	server := []string{"sh", "-c", "touch " + marker + "; exec sleep 30"}

	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.xml")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}

	for _, out := range []string{filepath.Join(dir, "no", "such", "dir", "r.xml"), link} {
		code, stdout, stderr := lab(t, append([]string{"grade", "--format", "junit", "--out", out, "--"}, server...)...)
		if code != exitCannot || stdout != "" || !strings.Contains(stderr, "nothing was graded") {
			t.Errorf("--out %s: exit %d, stdout %q, stderr %q; want exit 2 and a refusal that says nothing was graded", out, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the server was started (%v) although --out could not be written", err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep me\n" {
		t.Errorf("the link's target was written: %q", data)
	}
}

// TestGradeOutWritesANewFile: a report is written whole to a new file, and
// replaces a plain file of the same name the grader's user owns.
func TestGradeOutWritesANewFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := lab(t, append([]string{"grade", "--format", "json", "--out", out, "--"}, selfLab("serve", "reader")...)...)
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(data), "{") || !strings.Contains(string(data), `"gradable": true`) {
		t.Errorf("report %q (%v): want the JSON report", data, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("the report's folder holds %d entries, want the report alone (no temporary file left)", len(entries))
	}
}
