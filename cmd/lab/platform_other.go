//go:build !linux

package main

import (
	"fmt"
	"runtime"
)

// classGradingSupported says why lab grade-class cannot run on this system:
// its sandboxes need Linux.
func classGradingSupported() error {
	return fmt.Errorf("grade-class runs on Linux only, and this lab is built for %s/%s: both of its sandboxes keep "+
		"one student's server from the others' with what only Linux has (a user id per student, namespaces and "+
		"cgroups for the process sandbox; Linux containers run as an unprivileged user for the container sandbox). "+
		"Grade the class on a Linux machine (a Linux virtual machine, or WSL 2 on Windows, will do); "+
		"here, lab grade, lab run and the other student commands work as on Linux",
		runtime.GOOS, runtime.GOARCH)
}
