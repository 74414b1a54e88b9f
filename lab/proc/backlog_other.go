//go:build !linux

package proc

import (
	"errors"
	"os"
)

// PipeBacklog is not available on this system: the client then paces chunks
// by the schedule alone.
func PipeBacklog(f *os.File) (int, error) {
	return 0, errors.New("pipe backlog is not available on this system")
}
