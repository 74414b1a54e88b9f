package testkit

import (
	"fmt"
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

// CopyTree copies the folder src into dst (created), files and folders
// only, keeping each file's executable bits, and every copy readable by
// all users. Tests copy the fixtures a sandboxed program must reach into
// the folder they made, instead of linking to the checkout: the sandbox
// shows a program its class folder, not the place the checkout sits (a
// private /tmp, or a home only its owner may enter).
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			mode := os.FileMode(0o644) | info.Mode().Perm()&0o111
			if mode&0o100 != 0 {
				mode |= 0o111
			}
			if err := os.WriteFile(to, data, mode); err != nil {
				return err
			}
			return os.Chmod(to, mode)
		}
		return nil // a link or a device: not a fixture
	})
	if err != nil {
		t.Fatalf("copying the fixtures %s to %s: %v", src, dst, err)
	}
}

// UseTestRecordKey points the environment variable env (the grader's record
// key file, class.RecordKeyEnv) at a key of this user's outside the home
// folder, unless it names one already, so that no test, nor any lab it
// starts, makes ~/.config/mcplab/record-key. Call it from a test package's
// init; tests that need a key of their own set env with t.Setenv.
func UseTestRecordKey(env string) {
	if os.Getenv(env) == "" {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("mcplab-test-record-key-%d", os.Geteuid()))
		os.Setenv(env, filepath.Join(dir, "record-key"))
	}
}
