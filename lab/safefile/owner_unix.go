//go:build unix

package safefile

import (
	"io/fs"
	"syscall"
)

// NoFollow makes an open fail on a symbolic link rather than follow it.
const NoFollow = syscall.O_NOFOLLOW

// Owner is the uid that owns the file info describes, or -1 when unknown.
func Owner(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
