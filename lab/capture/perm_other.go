//go:build !unix

package capture

import "io/fs"

// othersMayWrite reports false: here the mode bits do not say who may
// write to a folder (Windows keeps that in access control lists), so
// only the links and the kinds of entry are checked.
func othersMayWrite(fs.FileMode) bool { return false }
