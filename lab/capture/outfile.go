package capture

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcplab/mcplab/lab/safefile"
)

// WriteNew writes data to the file at path the way the grader writes its
// results: never through a link. The data goes to a new file of a
// temporary name in the same folder (created with O_EXCL and O_NOFOLLOW,
// so nothing planted there is opened), which is then renamed over path.
// It refuses, before writing anything:
//   - a folder, or any folder above it, that users other than its owner may
//     write to, unless it is sticky as /tmp is (there no one may rename or
//     delete what another user made);
//   - a path that is a symbolic link, not a regular file, or a file of
//     another user.
//
// Every name is resolved inside the folder (see os.Root), so a link
// swapped in for the folder's entries is never followed.
func WriteNew(path string, data []byte) error {
	root, name, err := openFor(path)
	if err != nil {
		return err
	}
	defer root.Close()
	tmp := "." + name + ".tmp-" + safefile.TempSuffix()
	err = safefile.WriteRenamed(root, tmp, name, data, func() error {
		// Checked again just before the rename: a link that appeared since
		// is refused, not replaced.
		if info, lerr := root.Lstat(name); lerr == nil {
			if why := notReplaceable(info); why != "" {
				return fmt.Errorf("%s appeared while it was being written, and %s", path, why)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// CheckNew says whether WriteNew would write path, without writing
// anything: lab capture asks before it starts the server, so that a
// refusal does not come after a whole session.
func CheckNew(path string) error {
	root, _, err := openFor(path)
	if err != nil {
		return err
	}
	return root.Close()
}

// openFor opens the folder path is to be written in, after the checks both
// WriteNew and CheckNew make (the folders above it, and what stands at its
// name), and returns it with the file's name inside it.
func openFor(path string) (*os.Root, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("writing %s: %w", path, err)
	}
	dir, name := filepath.Split(abs)
	if err := safeFolders(dir); err != nil {
		return nil, "", fmt.Errorf("writing %s: %w", path, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := checkEntry(root, name, path); err != nil {
		root.Close()
		return nil, "", err
	}
	return root, name, nil
}

// checkEntry refuses an existing entry name of root that WriteNew must not
// replace.
func checkEntry(root *os.Root, name, path string) error {
	info, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if why := notReplaceable(info); why != "" {
		return fmt.Errorf("%s already exists and %s; lab capture replaces only a regular file of its own user: "+
			"remove it or name another OUT", path, why)
	}
	return nil
}

// notReplaceable says why an existing entry must not be replaced, or ""
// when it is a regular file of the lab's own user.
func notReplaceable(info fs.FileInfo) string {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link"
	case !info.Mode().IsRegular():
		return "is " + KindOf(info.Mode())
	case safefile.Owner(info) != os.Geteuid():
		return fmt.Sprintf("belongs to uid %d, not to the user the lab runs as", safefile.Owner(info))
	}
	return ""
}

// safeFolders checks dir and every folder above it: no user but its owner
// may write to it, unless it is sticky.
func safeFolders(dir string) error {
	return safefile.CheckFolders(dir, func(p string, info fs.FileInfo) error {
		if othersMayWrite(info.Mode()) {
			return fmt.Errorf("other users may write to the folder %s (mode %04o, not sticky), and could swap the file "+
				"for a link; write into a folder only you can write to", p, info.Mode().Perm())
		}
		return nil
	})
}

// KindOf names what a file that is not a regular file is, for a message:
// "a folder", "a named pipe (FIFO)", "a device", "a socket".
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}
