package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunRefusesAnIncompleteManifest: a lesson folder whose manifest lacks
// a line its kind needs (a server lesson with no server line) is refused
// before anything runs, as lab grade refuses it: a usage error that names
// the file and the line.
func TestRunRefusesAnIncompleteManifest(t *testing.T) {
	dir := t.TempDir()
	manifest := "number: 99\ntitle: No server\nsubject: server\nrun: scenario.txtar\n"
	if err := os.WriteFile(filepath.Join(dir, "lesson.txt"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := lab(t, "run", "--lesson", "99", "--lesson-dir", dir)
	want := "lab run: lesson.txt: the manifest has no \"server\" line\nRun \"lab help run\" for usage.\n"
	if code != exitCannot || out != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr\n%q\nwant exit %d, no stdout, stderr\n%q", code, out, stderr, exitCannot, want)
	}
}
