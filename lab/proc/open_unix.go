//go:build unix

package proc

import (
	"os"
	"syscall"
)

// openScript opens path to read its first line: without blocking (a FIFO
// named like a program opens at once) and never through a symbolic link.
func openScript(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
