//go:build unix

package class

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link rather than follow it.
const oNoFollow = syscall.O_NOFOLLOW

// oReadSafe opens a student's file to read: never through a link, without
// blocking on a FIFO, and without making a terminal the grader's.
const oReadSafe = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_NOCTTY

// owner is the uid that owns the file info describes, or -1 when unknown.
func owner(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
