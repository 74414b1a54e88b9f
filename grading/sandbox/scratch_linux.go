//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// newRunScratch makes a run scratch folder in the workspace work, with a
// folder for each of folders, or returns nil when work is not a file
// system of its own (not a workspace the sandbox capped, or the grader is
// not root): the run then keeps the sandbox's other scratch folders. The
// folder has a fresh random name, is root's and mode 0755, so the job's
// user can write in its folders only, and cannot swap them for others.
func newRunScratch(work string, folders []scratchFolder) (*runScratch, error) {
	if os.Geteuid() != 0 || !ownFileSystem(work) {
		return nil, nil
	}
	dir := filepath.Join(work, runScratchPrefix+randomSuffix())
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the run's scratch folders in its workspace: %w", err)
	}
	r := &runScratch{work: work, dir: dir, folders: folders}
	// The folder is opened, never followed, and found to be the one just
	// made before anything is made in it: the workspace is the job's, and
	// only what root made there is trusted.
	fd, err := openRootFolder(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("making the run's scratch folders in its workspace: %w", err)
	}
	defer syscall.Close(fd)
	for _, f := range folders {
		err := syscall.Mkdirat(fd, f.name, 0o700)
		if err == nil {
			err = syscall.Fchmodat(fd, f.name, 0o1777, 0)
		}
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("making the run's scratch folder for %s: %w", f.path, err)
		}
	}
	if err := syscall.Fchmod(fd, 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("making the run's scratch folders in its workspace: %w", err)
	}
	return r, nil
}

// finish ends a run's scratch folders, once nothing of the run is left to
// write in them: when the run filled the workspace (with them, or with
// LAB_WORK), the workspace is marked as filled (see filledBefore), then
// the folder is removed, and the room it took is the job's again. A nil r
// does nothing.
func (r *runScratch) finish() error {
	if r == nil {
		return nil
	}
	var mark error
	if WorkspaceFull(r.work) {
		if err := markFilled(r.work); err != nil {
			mark = fmt.Errorf("marking the workspace %s as filled: %w", r.work, err)
		}
	}
	if err := os.RemoveAll(r.dir); err != nil {
		return errors.Join(mark, fmt.Errorf("removing the run's scratch folders: %w", err))
	}
	return mark
}

// openRootFolder opens the folder path without following a link at its
// end, and makes sure it is root's: a folder made by the grader, which no
// job's user could have put there.
func openRootFolder(path string) (int, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening %s: %w", path, err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, fmt.Errorf("opening %s: %w", path, err)
	}
	if st.Uid != 0 {
		syscall.Close(fd)
		return -1, fmt.Errorf("opening %s: it belongs to uid %d, not to the grader", path, st.Uid)
	}
	return fd, nil
}

// ownFileSystem reports whether dir is a file system of its own: its
// device differs from its parent's (a workspace capped as a tmpfs).
func ownFileSystem(dir string) bool {
	var dirSt, parentSt syscall.Stat_t
	if syscall.Stat(dir, &dirSt) != nil || syscall.Stat(filepath.Dir(dir), &parentSt) != nil {
		return false
	}
	return dirSt.Dev != parentSt.Dev
}

// filledAttr is the extended attribute that marks a workspace a run filled
// (see markFilled). A trusted.* attribute: only root may set or remove it,
// so no job can unmark its own workspace.
const filledAttr = "trusted.mcplab.filled"

// markFilled marks the workspace work as one a run filled: the room the
// run's scratch folders took comes back when they are removed, and
// WorkspaceFull must still report the job as one that filled its cap.
func markFilled(work string) error {
	return syscall.Setxattr(work, filledAttr, []byte("1"), 0)
}

// filledBefore reports whether a run of the job filled the workspace work
// (see markFilled), even if it has room again now.
func filledBefore(work string) bool {
	_, err := syscall.Getxattr(work, filledAttr, nil)
	return err == nil
}

// openScratch opens, for the launcher, each folder of the run scratch
// folder dir (made by newRunScratch in the workspace, the folder above
// it) that stands for one of folders, without following links, making
// sure each is root's: the launcher binds exactly those folders, whatever
// the job's user did to the paths. The descriptors are keyed by the
// scratch folder they stand for.
func openScratch(dir string, folders []scratchFolder) (map[string]int, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("the run's scratch folder %q is not an absolute path", dir)
	}
	top, err := openRootFolder(dir)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(top)
	fds := map[string]int{}
	for _, f := range folders {
		fd, err := syscall.Openat(top, f.name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err == nil {
			var st syscall.Stat_t
			if err = syscall.Fstat(fd, &st); err == nil && st.Uid != 0 {
				err = fmt.Errorf("it belongs to uid %d, not to the grader", st.Uid)
			}
			if err != nil {
				syscall.Close(fd)
			}
		}
		if err != nil {
			for _, fd := range fds {
				syscall.Close(fd)
			}
			return nil, fmt.Errorf("opening the run's scratch folder for %s: %w", f.path, err)
		}
		fds[f.path] = fd
	}
	return fds, nil
}
