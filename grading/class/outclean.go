package class

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// RemoveIfEmpty closes the results folder and removes it when it holds
// nothing but what CreateOut put there (its marker and an empty students
// folder): a run that failed before any result was written leaves nothing
// behind. A folder holding anything more is closed and kept. It reports
// whether the folder was removed.
func (o *Out) RemoveIfEmpty() (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return false, errors.Join(fmt.Errorf("removing the results folder: %w", err), o.root.Close())
	}
	// Root.Remove removes only an empty folder: a students folder with
	// anything in it stays, and so does the results folder then.
	if err := o.root.Remove(StudentsDir); err != nil {
		return false, errors.Join(o.root.Chmod(".", 0o755), o.root.Close())
	}
	entries, err := readNames(o.root)
	if err != nil || len(entries) != 1 || entries[0] != OutMarker {
		err = errors.Join(err, o.root.Mkdir(StudentsDir, 0o755), o.root.Chmod(".", 0o755), o.root.Close())
		return false, err
	}
	if err := o.root.Remove(OutMarker); err != nil {
		return false, errors.Join(fmt.Errorf("removing the results folder: %w", err), o.root.Close())
	}
	if err := o.root.Close(); err != nil {
		return false, fmt.Errorf("removing the results folder: %w", err)
	}
	if err := os.Remove(abs); err != nil {
		return false, fmt.Errorf("removing the results folder: %w", err)
	}
	return true, nil
}

func readNames(root *os.Root) ([]string, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
