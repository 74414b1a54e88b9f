//go:build !unix

package rig

import "os"

// privateMode reports true: here the mode bits do not say who may use a
// folder (Windows keeps that in access control lists, and the rig's folder
// is made in the user's own temporary folder), so only a link is refused.
func privateMode(os.FileMode) bool { return true }
