package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoRunBinary tells go run's binaries from go build's and go test's by
// the path the toolchain links them at.
func TestGoRunBinary(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build1095041062/b001/exe/lab":      true,
		`C:\Temp\go-build42\b001\exe\lab.exe`:       filepath.Separator == '\\',
		"/tmp/go-build1095041062/b001/lab.test":     false,
		"/tmp/go-build1095041062/b001/exe/lab.test": false,
		"/home/t/mcplab/dist/lab":                   false,
		"/home/t/exe/lab":                           false,
		"/usr/local/bin/lab":                        false,
	} {
		if got := goRunBinary(exe); got != want {
			t.Errorf("goRunBinary(%q) = %v, want %v", exe, got, want)
		}
	}
}

// TestGoRunBuildFromClone makes a clone of the lab's module (only its
// go.mod) and describes a go run lab run in a folder below it: a clean
// tree names its commit as a pseudo-version, a release tag on HEAD names
// the release, a change or an untracked file refuses with the commit to
// pass, and a folder outside any clone says why it cannot name a lab.
func TestGoRunBuildFromClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-11-30T09:08:07+02:00", "GIT_AUTHOR_DATE=2026-11-30T09:08:07+02:00")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+modulePath+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "cmd", "lab")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	git("add", "go.mod")
	git("commit", "-q", "-m", "x")
	rev := git("rev-parse", "HEAD")
	ctx := context.Background()

	b := goRunBuild(ctx, execGit, sub, labBuild{Shown: "dev"})
	want := "v0.0.0-20261130070807-" + rev[:12]
	if b.Pin != want || b.Shown != want || b.Commit != rev[:12] {
		t.Errorf("clean clone: Pin %q Shown %q Commit %q, want %s", b.Pin, b.Shown, b.Commit, want)
	}

	git("tag", "v1.4.2")
	if b := goRunBuild(ctx, execGit, sub, labBuild{}); b.Pin != "v1.4.2" {
		t.Errorf("HEAD tagged v1.4.2: Pin %q", b.Pin)
	}

	if err := os.WriteFile(filepath.Join(sub, "new.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b = goRunBuild(ctx, execGit, sub, labBuild{})
	if b.Pin != "" || !strings.Contains(b.Why, "local changes") || !strings.Contains(b.Why, "--lab-version "+want) {
		t.Errorf("untracked file: Pin %q, Why %q", b.Pin, b.Why)
	}

	outside := t.TempDir()
	b = goRunBuild(ctx, execGit, outside, labBuild{Shown: "dev"})
	if b.Pin != "" || !strings.Contains(b.Why, "go.mod of "+modulePath) || !strings.Contains(b.Why, "--lab-version") {
		t.Errorf("outside a clone: Pin %q, Why %q", b.Pin, b.Why)
	}
}
