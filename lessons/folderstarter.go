package lessons

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/mcplab/mcplab/lab/safefile"
	"github.com/mcplab/mcplab/lab/txtar"
)

// The bounds of what lab assignment copies from a lesson folder on disk
// (its starters, its grading files): a lesson is a few small files, so
// more than this is a mistake (a build folder, a node_modules) and refused
// rather than copied into every student's repository.
const (
	folderFiles = 200
	folderFile  = 1 << 20
	folderTotal = 8 << 20
)

// BuiltIn reports whether the lesson is one of the lab's own, rather than
// a folder on disk (a teacher's --lesson-dir).
func (m *Manifest) BuiltIn() bool { return m.files() == fs.FS(files) }

// starterFiles returns every file of the lesson's starter/ folder, named
// by its path from the root of the files the lesson is in (as the lab's
// starters archive names them): the archive's for a built-in lesson (the
// embedded files cannot hold a Go starter, see startersArchive), the
// folder's own for one on disk.
func (m *Manifest) starterFiles() ([]txtar.File, error) {
	if m.BuiltIn() {
		archive, err := txtar.Files(startersArchive)
		if err != nil {
			return nil, fmt.Errorf("the lab's starters archive: %w", err)
		}
		return archive, nil
	}
	root := path.Join(m.Dir, "starter")
	if _, err := fs.Stat(m.fsys, root); err != nil {
		return nil, nil // no starter at all: Starter says so
	}
	out, err := readFolder(m.fsys, root, "")
	if err != nil {
		return nil, fmt.Errorf("lesson %d's starters: %w", m.Number, err)
	}
	return out, nil
}

// GradingFiles returns the files of a lesson folder on disk that grading
// reads, by their paths inside the folder: all but its starter/ folder and
// hidden ones (a .git), for a student repository whose CI grades with
// them (lab grade --lesson-dir). A built-in lesson has none: the lab holds
// them.
func (m *Manifest) GradingFiles() ([]StarterFile, error) {
	if m.BuiltIn() {
		return nil, nil
	}
	files, err := readFolder(m.fsys, m.Dir, path.Join(m.Dir, "starter"))
	if err != nil {
		return nil, fmt.Errorf("lesson %d's folder: %w", m.Number, err)
	}
	out := make([]StarterFile, len(files))
	for i, f := range files {
		rel := f.Name
		if m.Dir != "." {
			rel = f.Name[len(m.Dir)+1:]
		}
		out[i] = StarterFile{Name: rel, Data: f.Data}
	}
	return out, nil
}

// readFolder reads every file below root in fsys but those below skip and
// hidden ones (a name that begins with a dot), named by their paths in
// fsys, within the bounds above. Only plain files
// and folders are read; a link, a pipe or a file over the bounds is
// refused, naming it.
func readFolder(fsys fs.FS, root, skip string) ([]txtar.File, error) {
	var out []txtar.File
	total := 0
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p != root && strings.HasPrefix(d.Name(), "."), d.IsDir() && p == skip:
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s is not a plain file (a link or a device): a lesson's folder holds files only", p)
		case len(out) == folderFiles:
			return fmt.Errorf("%s holds more than %d files: a lesson is a few small files", root, folderFiles)
		}
		data, err := readCapped(fsys, p, folderFile)
		if err != nil {
			return err
		}
		if total += len(data); total > folderTotal {
			return fmt.Errorf("%s holds more than %d bytes: a lesson is a few small files", root, folderTotal)
		}
		out = append(out, txtar.File{Name: p, Data: data})
		return nil
	})
	return out, err
}

// readCapped reads the file name of fsys, refusing one over max bytes.
func readCapped(fsys fs.FS, name string, max int) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, over, err := safefile.ReadAtMost(f, int64(max))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if over {
		return nil, fmt.Errorf("%s is over %d bytes: a lesson's file is a small text", name, max)
	}
	return data, nil
}
