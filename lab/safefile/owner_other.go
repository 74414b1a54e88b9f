//go:build !unix

package safefile

import "io/fs"

// NoFollow is 0 where open has no O_NOFOLLOW: the files opened with it are
// created anew (O_CREATE|O_EXCL), which no link can stand in for, inside
// an os.Root, which follows no link out of its folder.
const NoFollow = 0

// Owner is -1, as os.Geteuid is here: files have no uid.
func Owner(fs.FileInfo) int { return -1 }
