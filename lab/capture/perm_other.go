//go:build !unix

package capture

import "io/fs"

// oNoFollow is 0 where open has no O_NOFOLLOW: every file opened for
// writing is created anew (O_CREATE|O_EXCL), which no link can stand in
// for, inside an os.Root, which follows no link out of its folder.
const oNoFollow = 0

// owner is -1, as os.Geteuid is here: files have no uid.
func owner(fs.FileInfo) int { return -1 }

// othersMayWrite reports false: here the mode bits do not say who may
// write to a folder (Windows keeps that in access control lists), so
// only the links and the kinds of entry are checked.
func othersMayWrite(fs.FileMode) bool { return false }
