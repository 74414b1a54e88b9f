package class

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/grading"
)

// Identify says what a submission folder holds, so a result can be tied to
// it: its name, the git commit checked out in it when the folder is the top
// of a git checkout, and always a hash of its files (which also covers
// changes not yet committed).
//
// The commit is read from the .git folder's files, without running git:
// git would obey the checkout's own configuration, which the student
// wrote.
func Identify(dir string) *grading.Submission {
	s := &grading.Submission{Name: filepath.Base(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a submission linked into the class folder
	}
	s.Commit = gitHead(dir)
	s.Hash = hashTree(dir)
	return s
}

// gitHead returns the commit checked out at dir, or "".
func gitHead(dir string) string {
	gitDir := filepath.Join(dir, ".git")
	info, err := os.Stat(gitDir)
	if err != nil {
		return ""
	}
	if !info.IsDir() {
		// A worktree or submodule: ".git" is a file "gitdir: PATH".
		data, err := os.ReadFile(gitDir)
		if err != nil {
			return ""
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if !ok {
			return ""
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		gitDir = p
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !isRef {
		return validCommit(ref)
	}
	// Loose refs may live in the worktree's git dir or in the common one.
	dirs := []string{gitDir}
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		dirs = append(dirs, c)
	}
	for _, d := range dirs {
		if data, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return validCommit(strings.TrimSpace(string(data)))
		}
	}
	for _, d := range dirs {
		if c := packedRef(filepath.Join(d, "packed-refs"), ref); c != "" {
			return c
		}
	}
	return ""
}

func packedRef(path, ref string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		hash, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref {
			return validCommit(hash)
		}
	}
	return ""
}

// validCommit returns s when it is a SHA-1 or SHA-256 object name.
func validCommit(s string) string {
	if len(s) != 40 && len(s) != 64 {
		return ""
	}
	if _, err := hex.DecodeString(s); err != nil {
		return ""
	}
	return strings.ToLower(s)
}

// hashTree is "sha256:" and the hex digest of the folder's files, sorted by
// path: for each, its kind, its slash-separated path and its contents (a
// symbolic link's target, unfollowed). The .git folder and the files'
// modes and times are left out, so a fresh checkout of the same commit
// hashes the same. A file that cannot be read counts by its name only.
func hashTree(dir string) string {
	type entry struct{ rel, path string }
	var files []entry
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && p != dir {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err == nil {
			files = append(files, entry{filepath.ToSlash(rel), p})
		}
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].rel < files[j].rel })
	h := sha256.New()
	for _, f := range files {
		info, err := os.Lstat(f.path)
		switch {
		case err != nil:
			fmt.Fprintf(h, "unreadable %q\n", f.rel)
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(f.path)
			fmt.Fprintf(h, "link %q %q\n", f.rel, target)
		case info.Mode().IsRegular():
			fmt.Fprintf(h, "file %q %d\n", f.rel, info.Size())
			if in, err := os.Open(f.path); err == nil {
				_, _ = io.Copy(h, in)
				in.Close()
			}
		default:
			fmt.Fprintf(h, "other %q\n", f.rel)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
