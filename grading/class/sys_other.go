//go:build !unix

package class

import "io/fs"

// oNoFollow is 0 where open has no O_NOFOLLOW; grade-class runs on Linux
// only (see cmd/lab), and what it opens is inside an os.Root, which follows
// no link out of its folder.
const oNoFollow = 0

// oReadSafe is 0 here, for the same reason as oNoFollow.
const oReadSafe = 0

// owner is -1, as os.Geteuid is here: files have no uid.
func owner(fs.FileInfo) int { return -1 }
