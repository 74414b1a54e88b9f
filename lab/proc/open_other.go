//go:build !unix

package proc

import (
	"errors"
	"fmt"
	"os"
)

// openScript opens path to read its first line, never through a symbolic
// link: where open has no O_NOFOLLOW, path must not be a link before it is
// opened, and what was opened must be the file that was looked at.
func openScript(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("opening %s: %w", path, errors.New("not a regular file"))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("opening %s: %w", path, errors.New("the file changed while it was opened"))
	}
	return f, nil
}
