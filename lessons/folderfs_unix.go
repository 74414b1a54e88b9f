//go:build unix

package lessons

import "syscall"

// openNonBlock opens without waiting for a FIFO's writer (a plain file's
// reads never wait, whatever the flag).
const openNonBlock = syscall.O_NONBLOCK
