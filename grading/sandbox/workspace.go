package sandbox

import (
	"errors"
	"os"
	"path/filepath"
)

// DefaultWorkspaceSize is a job's scratch cap: when the grader runs as
// root, everything the programs of one job (one student: its build step
// and every scenario run) can keep in scratch space at once comes out of
// it. The job's scratch folder (LAB_WORK, which holds its build and its
// Go build cache, and which every run of the job shares) is then a file
// system of its own (a tmpfs) of this size, and each run's private /tmp,
// /var/tmp, /dev/shm and /run/lock (the process sandbox's, in its
// namespaces; the container sandbox's /tmp and /dev/shm) are folders of
// it, made for the run and removed once it has ended (see runScratch).
// So the memory one student's files can pin is this size and no more,
// wherever they write them, and a class graded with N jobs at once pins
// at most N times this size. A submission that fills it fails its own
// writes ("no space left on device"), takes nothing from the machine's
// disk or from the other jobs, and is flagged as one that filled its
// scratch space (see WorkspaceFull), even when the room came back with
// the end of the run that filled it.
//
// 512 MiB is ample: the build of the largest Go starter (lesson 3's
// client) needs 150 MiB at its peak with the seed cache (185 MiB with
// none) and leaves 101 MiB (98 MiB) in LAB_WORK; a lesson 1 or 2 server's
// build needs 46 MiB (77 MiB) and leaves 45 MiB (40 MiB), as
// TestMeasureGoStarterBuild measures. That is 2.7 times the largest peak,
// and 400 MiB or more for the runs once the build is done.
//
// Without root there is no tmpfs: LAB_WORK is a plain folder on the
// grader's disk, capped in total by nothing (Limits.FileSize caps each
// file), and the programs use the machine's /tmp (the process sandbox)
// or a tmpfs /tmp of DefaultScratchSize of their own (the container
// sandbox).
const DefaultWorkspaceSize = 512 << 20

// fullBelow is the free space under which a workspace counts as full,
// at the end of any run of the job, or when asked (see WorkspaceFull).
const fullBelow = 1 << 20

// RemoveWorkspace removes a job's scratch folder made by Sandbox.Workspace
// (and every run's scratch folders left in it): its file system is
// detached (even while something still uses it), then the folder is
// removed.
func RemoveWorkspace(dir string) error {
	return errors.Join(unmount(dir), os.RemoveAll(dir))
}

// runScratchPrefix begins the name of the folder, at the top of a job's
// workspace, that holds one run's private scratch folders (see runScratch).
const runScratchPrefix = ".lab-scratch-"

// scratchDirFlag is the launcher's option that names the run scratch
// folder its namespaces take their scratch folders from.
const scratchDirFlag = "-scratchdir"

// scratchFolder is a folder every user may write to (path) and the name
// of the folder that stands for it in a run scratch folder.
type scratchFolder struct{ path, name string }

// processScratch are the private scratch folders of a program in the
// process sandbox's namespaces.
func processScratch() []scratchFolder {
	return []scratchFolder{{"/tmp", "tmp"}, {"/var/tmp", "var-tmp"}, {"/dev/shm", "dev-shm"}, {"/run/lock", "run-lock"}}
}

// containerScratch are the scratch folders of a container: its root is
// read-only, so /var/tmp and /run/lock are not writable there.
func containerScratch() []scratchFolder {
	return []scratchFolder{{"/tmp", "tmp"}, {"/dev/shm", "dev-shm"}}
}

// runScratch is the folder in a job's workspace that holds one run's
// private scratch folders: one folder for each of its scratch folders
// (/tmp, /dev/shm, ...), root's, mode 1777 as on the machine, which the
// sandbox puts in the place of the machine's. They are on the workspace's
// file system, so whatever a run writes in its /tmp counts against the
// same cap as what the job keeps in LAB_WORK (see DefaultWorkspaceSize).
// The folder is removed once the run has ended (see finish): nothing the
// program left in its /tmp reaches the next run.
type runScratch struct {
	work, dir string
	folders   []scratchFolder
}

// folder is the path of the folder that stands for the scratch folder
// path, or "" when there is none.
func (r *runScratch) folder(path string) string {
	for _, f := range r.folders {
		if f.path == path {
			return filepath.Join(r.dir, f.name)
		}
	}
	return ""
}
