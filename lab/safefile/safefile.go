// Package safefile writes the files the lab and the grader leave behind
// (results, captures, configurations, programs) without ever following a
// link: a file is created new (O_CREATE|O_EXCL, with NoFollow), and a file
// that replaces another is written under a temporary name inside a folder
// opened as an os.Root, then renamed into place. The folders above are
// checked first by the caller's rules, through CheckFolders.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckFolders resolves the links in dir once, then calls check on that
// folder and on every folder above it, with what os.Lstat says of it,
// up to the root; it returns the first error check (or Lstat) returns.
func CheckFolders(dir string, check func(path string, info fs.FileInfo) error) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	for p := real; ; p = filepath.Dir(p) {
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if err := check(p, info); err != nil {
			return err
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// TempSuffix is 16 random hex digits, for the name of a temporary file
// that no one can guess in advance.
func TempSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// WriteRenamed writes data to tmp, a new file of root (mode 0644, never
// through a link), then renames it to name, so that name holds either what
// it held or all of data. beforeRename, if not nil, is asked last, with the
// file complete: an error from it keeps name as it was. On any error tmp
// is removed; the error is returned as it came, for the caller to say
// which file it was writing.
func WriteRenamed(root *os.Root, tmp, name string, data []byte, beforeRename func() error) error {
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|NoFollow, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Close()); err == nil && beforeRename != nil {
		err = beforeRename()
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// CreateNew writes data to a new file at path with mode perm, never through
// a link: a file already there, or a link, is refused. prepare, if not nil,
// is called with the file written and still open (to hand it to another
// user, say); its error is returned as it is, the file closed. The other
// errors say what was written: "writing WHAT: ..." when the file cannot be
// made, "writing WHAT PATH: ..." when it cannot be written or closed.
func CreateNew(path, what string, data []byte, perm os.FileMode, prepare func(*os.File) error) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|NoFollow, perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", what, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s %s: %w", what, path, err)
	}
	if prepare != nil {
		if err := prepare(f); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s %s: %w", what, path, err)
	}
	return nil
}
