//go:build !linux

package sandbox

import (
	"fmt"
	"os"
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
