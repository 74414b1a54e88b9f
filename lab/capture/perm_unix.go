//go:build unix

package capture

import "io/fs"

// othersMayWrite reports whether users other than a folder's owner may
// write to it (group or world writable) and it is not sticky, so they
// could rename or delete what its owner made.
func othersMayWrite(m fs.FileMode) bool {
	return m.Perm()&0o022 != 0 && m&fs.ModeSticky == 0
}
