//go:build unix

package testkit

import (
	"syscall"
	"testing"
)

// Mkfifo makes a named pipe at path with the permission bits perm, or
// fails t.
func Mkfifo(t testing.TB, path string, perm uint32) {
	t.Helper()
	if err := syscall.Mkfifo(path, perm); err != nil {
		t.Fatal(err)
	}
}
