//go:build !linux

package sandbox

// newRunScratch makes no run scratch folder: the workspaces the sandbox
// caps, in which it would be made, are tmpfs, made on Linux only. Runs keep
// the sandbox's other scratch folders.
func newRunScratch(string, []scratchFolder) (*runScratch, error) { return nil, nil }

// finish does nothing: there is no run scratch folder here.
func (*runScratch) finish() error { return nil }

// filledBefore reports false: no workspace is marked as filled outside
// Linux.
func filledBefore(string) bool { return false }
