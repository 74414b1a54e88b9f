package lessons

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/mcplab/mcplab/lab/safefile"
)

// Folder returns the files of the lesson folder dir on disk, as an fs.FS
// a teacher's folder can be trusted through: every name is opened within
// dir (a link that leads out of it is refused, as os.Root refuses it),
// anything but a plain file or a folder (a FIFO, a device, a socket) is
// refused by name without blocking on it, and ReadFile reads at most
// MaxFolderFile bytes of a file. The folder is opened once; a missing one
// is an error.
func Folder(dir string) (fs.FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the lesson folder %s: %w", dir, err)
	}
	return &folder{dir: dir, root: root}, nil
}

// MaxFolderFile bounds each file ReadFile reads from a lesson folder: its
// manifest, checks, scenarios and data are small texts (the help desk's
// data files, the largest, are capped at the same 8 MiB).
const MaxFolderFile = 8 << 20

// folder is the fs.FS Folder returns.
type folder struct {
	dir  string
	root *os.Root
}

// Open opens name within the folder: a plain file or a folder only.
func (f *folder) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	// Non-blocking: opening a FIFO for reading would wait for a writer.
	file, err := f.root.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		if info, lerr := f.root.Lstat(name); lerr == nil && info.Mode()&fs.ModeSymlink != 0 && !errors.Is(err, fs.ErrNotExist) {
			to, _ := f.root.Readlink(name)
			return nil, &fs.PathError{Op: "open", Path: name,
				Err: fmt.Errorf("it is a link that leads out of the lesson folder %s (to %s): a lesson folder's files lie inside it", f.dir, to)}
		}
		// Said as os.DirFS says it ("open lesson.txt: no such file or
		// directory"), without the folder, which the caller names.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: pe.Err}
		}
		return nil, err
	}
	info, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, fmt.Errorf("the lesson folder %s: %w", f.dir, err)
	}
	if !info.Mode().IsRegular() && !info.IsDir() {
		file.Close()
		return nil, &fs.PathError{Op: "open", Path: name,
			Err: fmt.Errorf("it is a %s, not a plain file: a lesson folder holds plain files and folders only", kindOf(info.Mode()))}
	}
	return file, nil
}

// ReadFile reads the plain file name, refusing one over MaxFolderFile.
func (f *folder) ReadFile(name string) ([]byte, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if info, err := file.Stat(); err == nil && info.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("it is a folder")}
	}
	data, over, err := safefile.ReadAtMost(file, MaxFolderFile)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if over {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("it is over %d MiB: a lesson's file is a small text", MaxFolderFile>>20)}
	}
	return data, nil
}

// Stat describes name within the folder without opening it: a link is
// followed only within the folder.
func (f *folder) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return f.root.Stat(name)
}

// ReadDir lists the folder name within the folder.
func (f *folder) ReadDir(name string) ([]fs.DirEntry, error) {
	file, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	dir, ok := file.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// kindOf names a file mode that is not a plain file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeSymlink != 0:
		return "link"
	}
	return "special file"
}
