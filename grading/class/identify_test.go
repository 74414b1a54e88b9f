package class_test

import (
	"os"
	"path/filepath"
	"testing"

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
