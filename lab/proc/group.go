package proc

// group ends a started program together with everything it started: a
// process group where the system has them (startGroup in group_unix.go), a
// job object on Windows (group_windows.go).
type group interface {
	// kill ends, at once, every process still in the group. It is safe to
	// call more than once, and after they have all ended.
	kill()
}
