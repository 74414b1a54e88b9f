//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HidesPath says why the program cannot reach path, which the grader can,
// or "" when the program reaches it as the grader does: a path in the
// job's private /tmp (or /var/tmp, /dev/shm) that the job does not keep,
// or one below a folder the job's user may not enter that the sandbox
// opens no way to.
func (ps *processJob) HidesPath(path string) string {
	if !filepath.IsAbs(path) {
		return ""
	}
	path = filepath.Clean(path)
	if _, err := os.Lstat(path); err != nil {
		return "" // not there for the grader either: not the sandbox's doing
	}
	uid, gid, err := ps.sb.User(ps.spec.Slot)
	if err != nil || uid < 0 {
		return ""
	}
	kept := ps.kept()
	inKept := func(p string) bool {
		for _, k := range kept {
			for _, k := range []string{filepath.Clean(k), realPath(k)} {
				if p == k || strings.HasPrefix(p, k+"/") {
					return true
				}
			}
		}
		return false
	}
	real := realPath(path)
	if inKept(path) || inKept(real) {
		return ""
	}
	if ps.sb.namespaces() {
		for _, d := range scratchDirs {
			if strings.HasPrefix(real, d+"/") {
				return fmt.Sprintf("it lies in %s, and the sandbox gives every program a private, empty %s of its own "+
					"that holds only the submission, its work folder and the class folder", d, d)
			}
		}
	}
	if closed := closedAbove(real, uid, gid); closed != "" && closed != real {
		return fmt.Sprintf("it lies in %s, a folder the sandbox's user (uid %d) may not enter, "+
			"and the sandbox opens a way through it only to the submission and the class folder", closed, uid)
	}
	return ""
}
