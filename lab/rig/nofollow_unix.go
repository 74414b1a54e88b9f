//go:build unix

package rig

import (
	"os"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link rather than follow it.
const oNoFollow = syscall.O_NOFOLLOW

// privateMode reports whether a folder of mode m is its owner's alone
// (no group or other permission bits).
func privateMode(m os.FileMode) bool { return m.Perm()&0o077 == 0 }
