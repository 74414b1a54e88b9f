//go:build unix

package capture

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link rather than follow it.
const oNoFollow = syscall.O_NOFOLLOW

// owner is the uid that owns the file info describes, or -1 when unknown.
func owner(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// othersMayWrite reports whether users other than a folder's owner may
// write to it (group or world writable) and it is not sticky, so they
// could rename or delete what its owner made.
func othersMayWrite(m fs.FileMode) bool {
	return m.Perm()&0o022 != 0 && m&fs.ModeSticky == 0
}
