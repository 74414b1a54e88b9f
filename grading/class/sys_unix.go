//go:build unix

package class

import "syscall"

// oReadSafe opens a student's file to read: never through a link, without
// blocking on a FIFO, and without making a terminal the grader's.
const oReadSafe = syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_NOCTTY
