//go:build unix

package clientlesson

import "syscall"

// oNoFollow makes an open fail on a symbolic link rather than follow it.
const oNoFollow = syscall.O_NOFOLLOW
