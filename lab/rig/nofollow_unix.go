//go:build unix

package rig

import "os"

// privateMode reports whether a folder of mode m is its owner's alone
// (no group or other permission bits).
func privateMode(m os.FileMode) bool { return m.Perm()&0o077 == 0 }
