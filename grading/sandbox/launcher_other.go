//go:build !linux

package sandbox

import (
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
