//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Main is the sandbox launcher; it needs Linux (process groups, resource
// limits, a subreaper), so elsewhere it only says so.
func Main(args []string) int {
	fmt.Fprintln(os.Stderr, "sandbox-exec: the process sandbox needs Linux; use --sandbox container")
	if f := os.NewFile(3, "status"); f != nil {
		fmt.Fprintln(f, "error: the process sandbox needs Linux; use --sandbox container")
	}
	return 125
}

// DefaultScratchSize is the size of the private scratch folders on Linux.
const DefaultScratchSize = 64 << 20

func setNamespaces(*syscall.SysProcAttr) {}

func isPermission(error) bool { return false }

func mountWorkspace(string, int64, int, int) error { return nil }

func unmount(string) error { return nil }

// SysVObjects lists nothing: System V IPC objects are read from Linux's
// /proc/sysvipc.
func SysVObjects() ([]SysVObject, error) { return nil, nil }

// SysVObjectsOf lists nothing: System V IPC objects are read from Linux's
// /proc/sysvipc.
func SysVObjectsOf(int) ([]SysVObject, error) { return nil, nil }

// cgroupHost is where job cgroups are made: nowhere outside Linux.
type cgroupHost struct{}

// jobCgroup is a job's memory cgroup (see the Linux build).
type jobCgroup struct{ dir string }

func findCgroupHost() (cgroupHost, error) {
	return cgroupHost{}, errors.New("memory cgroups need Linux")
}

func (cgroupHost) newJob(string, int64) (*jobCgroup, error) {
	return nil, errors.New("memory cgroups need Linux")
}

func (*jobCgroup) remove() error { return nil }

// hasFileRules reports whether the kernel can hold a program to file rules:
// only Linux's Landlock can.
func hasFileRules() bool { return false }
