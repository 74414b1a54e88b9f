package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// OpenDir returns a fresh folder, removed when t ends, that every user may
// pass through and read (it and its parent are mode 0755), so that a
// program run as a sandbox user can reach what a test puts there.
func OpenDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
