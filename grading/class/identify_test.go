//go:build unix

package class_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	commitA = "0123456789abcdef0123456789abcdef01234567"
	commitB = "89abcdef0123456789abcdef0123456789abcdef"
)

func TestIdentifyHash(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "alice"), filepath.Join(t.TempDir(), "alice")
	files := map[string]string{"run": "#!/bin/sh\n", "src/main.py": "print(1)\n", ".git/HEAD": "ref: refs/heads/main\n"}
	writeFiles(t, a, files)
	files[".git/HEAD"] = commitA + "\n" // the .git folder is not hashed
	writeFiles(t, b, files)
	ia, ib := class.Identify(a), class.Identify(b)
	if ia.Hash != ib.Hash || ia.Name != "alice" || len(ia.Hash) != len("sha256:")+64 {
		t.Errorf("same files, identities %+v and %+v", ia, ib)
	}
	// Moving content between files changes the hash.
	writeFiles(t, b, map[string]string{"run": "#!/bin/sh\nprint(1)\n", "src/main.py": ""})
	if class.Identify(b).Hash == ia.Hash {
		t.Error("different files, same hash")
	}
}

func TestIdentifyCommit(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		want  string
	}{
		"no git":   {map[string]string{"run": "x"}, ""},
		"detached": {map[string]string{".git/HEAD": commitA + "\n"}, commitA},
		"loose ref": {map[string]string{".git/HEAD": "ref: refs/heads/main\n",
			".git/refs/heads/main": commitB + "\n"}, commitB},
		"packed ref": {map[string]string{".git/HEAD": "ref: refs/heads/main\n",
			".git/packed-refs": "# pack-refs with: peeled fully-peeled sorted\n" + commitA + " refs/heads/dev\n" + commitB + " refs/heads/main\n"}, commitB},
		"unborn branch": {map[string]string{".git/HEAD": "ref: refs/heads/main\n"}, ""},
		"garbage":       {map[string]string{".git/HEAD": "not a commit\n"}, ""},
		"worktree inside": {map[string]string{".git": "gitdir: repo/.git/worktrees/w\n",
			"repo/.git/worktrees/w/HEAD":      "ref: refs/heads/feature\n",
			"repo/.git/worktrees/w/commondir": "../..\n",
			"repo/.git/refs/heads/feature":    commitA + "\n"}, commitA},
		// Only files inside the submission are read.
		"worktree outside": {map[string]string{".git": "gitdir: ../repo/.git/worktrees/w\n",
			"../repo/.git/worktrees/w/HEAD":      "ref: refs/heads/feature\n",
			"../repo/.git/worktrees/w/commondir": "../..\n",
			"../repo/.git/refs/heads/feature":    commitA + "\n"}, ""},
		"ref out of the git folder": {map[string]string{".git/HEAD": "ref: refs/../../../outside\n"}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sub")
			writeFiles(t, dir, c.files)
			if got := class.Identify(dir).Commit; got != c.want {
				t.Errorf("commit %q, want %q", got, c.want)
			}
		})
	}
}

// Identifying a submission reads only regular files inside it: a HEAD that
// is a FIFO or leads to /dev/zero, a .git that leads out, a FIFO among the
// files, none of them hangs the grader or makes it read without end.
func TestIdentifyHostile(t *testing.T) {
	cases := map[string]func(dir string) error{
		"HEAD is a FIFO": func(dir string) error {
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				return err
			}
			return syscall.Mkfifo(filepath.Join(dir, ".git", "HEAD"), 0o644)
		},
		"HEAD links to /dev/zero": func(dir string) error {
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				return err
			}
			return os.Symlink("/dev/zero", filepath.Join(dir, ".git", "HEAD"))
		},
		"a ref links to /dev/zero": func(dir string) error {
			writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
			if err := os.MkdirAll(filepath.Join(dir, ".git", "refs", "heads"), 0o755); err != nil {
				return err
			}
			if err := os.Symlink("/dev/zero", filepath.Join(dir, ".git", "refs", "heads", "main")); err != nil {
				return err
			}
			return os.Symlink("/dev/zero", filepath.Join(dir, ".git", "packed-refs"))
		},
		".git links out": func(dir string) error { return os.Symlink("/", filepath.Join(dir, ".git")) },
		"gitdir leads out": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /dev\n"), 0o644)
		},
		"a FIFO and a device link among the files": func(dir string) error {
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				return err
			}
			return os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
		},
	}
	for name, plant := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sub")
			writeFiles(t, dir, map[string]string{"run": "#!/bin/sh\n"})
			if err := plant(dir); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			var id *grading.Submission
			go func() { id = class.Identify(dir); close(done) }()
			timer := time.NewTimer(30 * time.Second)
			defer timer.Stop()
			select {
			case <-done:
			case <-timer.C:
				t.Fatal("Identify still runs after 30 s")
			}
			if id.Commit != "" || len(id.Hash) != len("sha256:")+64 {
				t.Errorf("identity %+v, want a hash and no commit", id)
			}
		})
	}
}
