//go:build !linux

package rig

// adoptOrphans is a no-op here: only Linux hands orphans to a subreaper.
func adoptOrphans() {}

// endOrphans finds nothing here.
func endOrphans() int { return 0 }
