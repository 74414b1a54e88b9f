package sandbox

import (
	"errors"
	"os"
)

// DefaultWorkspaceSize caps a job's scratch folder (LAB_WORK) in total,
// when the grader runs as root: the folder is then a file system of its own
// (a tmpfs) of this size, so a submission that fills it fails its own
// writes ("no space left on device") and takes nothing from the machine's
// disk or from the other jobs. Without root the folder is a plain folder,
// and only Limits.FileSize caps each file.
const DefaultWorkspaceSize = 1 << 30

// fullBelow is the free space under which a workspace counts as full.
const fullBelow = 1 << 20

// RemoveWorkspace removes a job's scratch folder made by Sandbox.Workspace:
// its file system is detached (even while something still uses it), then
// the folder is removed.
func RemoveWorkspace(dir string) error {
	return errors.Join(unmount(dir), os.RemoveAll(dir))
}
