//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockExclusive takes f's exclusive advisory lock without waiting, and
// fails when another process holds it.
func lockExclusive(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// groupAttr starts a process as the leader of a new process group.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGKILL to the process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// WorkspaceFull reports whether the job's scratch folder dir is a file
// system of its own that has (almost) no room left, or had none when one
// of its runs ended (see filledBefore): the submission filled it.
func WorkspaceFull(dir string) bool {
	var dirSt, parentSt syscall.Stat_t
	if syscall.Stat(dir, &dirSt) != nil || syscall.Stat(filepath.Dir(dir), &parentSt) != nil || dirSt.Dev == parentSt.Dev {
		return false
	}
	if filledBefore(dir) {
		return true
	}
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) != nil {
		return false
	}
	return int64(fs.Bavail)*int64(fs.Bsize) < fullBelow
}
