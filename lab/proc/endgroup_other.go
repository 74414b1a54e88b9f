//go:build !linux

package proc

// endGroupOnExit does nothing where waitid cannot wait without reaping:
// Start kills the group just after the program is reaped instead.
func endGroupOnExit(int) {}
