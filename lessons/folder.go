package lessons

import (
	"errors"
	"fmt"
	"io/fs"
)

// Find returns the manifest of lesson n. With dir nil it is the built-in
// lesson's (Get). With dir a lesson folder (a teacher's --lesson-dir), it is
// the folder's own manifest, which must say it is lesson n; a folder
// without a manifest only holds other grading scenarios for built-in lesson
// n, whose manifest it returns.
func Find(n int, dir fs.FS) (*Manifest, error) {
	if dir == nil {
		return Get(n)
	}
	if _, err := fs.Stat(dir, ManifestFile); errors.Is(err, fs.ErrNotExist) {
		return Get(n)
	}
	m, err := ReadManifest(dir, ".")
	if err != nil {
		return nil, err
	}
	if m.Number != n {
		return nil, fmt.Errorf("the lesson folder is lesson %d, not lesson %d (its %s says so): pass --lesson %d", m.Number, n, ManifestFile, m.Number)
	}
	return m, nil
}

// files returns the files that hold the lesson's folder Dir.
func (m *Manifest) files() fs.FS {
	if m.fsys == nil {
		return files
	}
	return m.fsys
}

// Folder returns the lesson's folder: the files inside it, by their paths
// inside it (a built-in lesson's, or a folder's on disk).
func (m *Manifest) Folder() (fs.FS, error) {
	sub, err := fs.Sub(m.files(), m.Dir)
	if err != nil {
		return nil, fmt.Errorf("opening the folder of lesson %d: %w", m.Number, err)
	}
	return sub, nil
}
