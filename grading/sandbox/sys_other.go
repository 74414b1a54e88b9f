//go:build !unix

package sandbox

import (
	"errors"
	"os"
	"syscall"
)

// errNeedsLinux is why the process sandbox's parts do nothing here.
var errNeedsLinux = errors.New("the process sandbox needs Linux; use --sandbox container")

// lockExclusive cannot lock here: the process sandbox, whose users it
// locks, needs Linux.
func lockExclusive(*os.File) error { return errNeedsLinux }

// groupAttr has no process groups to ask for here.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// killGroup does nothing: there are no process groups here, and the
// launcher it would end cannot run (see Main).
func killGroup(int) {}

// WorkspaceFull reports false: the private scratch file systems it looks
// at are made on Linux only.
func WorkspaceFull(string) bool { return false }
