//go:build !unix

package rig

import "os"

// oNoFollow is 0 where open has no O_NOFOLLOW: the files opened with it
// are created anew (O_CREATE|O_EXCL), which no link can stand in for.
const oNoFollow = 0

// privateMode reports true: here the mode bits do not say who may use a
// folder (Windows keeps that in access control lists, and the rig's folder
// is made in the user's own temporary folder), so only a link is refused.
func privateMode(os.FileMode) bool { return true }
