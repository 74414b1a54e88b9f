//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
)

// TestHostileLessonFolderIsRefusedByName grades against copies of lesson
// 1's folder in which one file the manifest names is a link to /dev/zero,
// a link to /etc/shadow, or a FIFO: lab grade reads none of them, waits on
// none, and says which file it refused and why, at once. (A deadline of a
// whole second is generous: the refusal reads nothing.)
func TestHostileLessonFolderIsRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
		plant            func(path string) error
	}{
		{"zero", "lesson.txt", "lesson.txt: it is a link that leads out of the lesson folder", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"shadow", "grading/checks.txtar", "(to /etc/shadow)", func(p string) error { return os.Symlink("/etc/shadow", p) }},
		{"fifo", "grading/01-schedule.txtar", "01-schedule.txtar: it is a named pipe (FIFO), not a plain file", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "lesson")
			testkit.CopyTree(t, filepath.Join("..", "..", "lessons", "01-reading-messages"), dir)
			path := filepath.Join(dir, filepath.FromSlash(tc.file))
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := tc.plant(path); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			code, stdout, stderr := lab(t, "grade", "--lesson-dir", dir, "--", "true")
			took := time.Since(start)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want a failure saying %q", code, stdout, stderr, tc.want)
			}
			if took > time.Second {
				t.Errorf("the refusal took %v", took)
			}
		})
	}
}
