package proc

import (
	"os"
	"syscall"
	"unsafe"
)

// PipeBacklog returns how much written to f is still waiting to be read
// on the other side. For a pipe that is the FIONREAD ioctl, bytes
// included; for a socket (a Node parent hands its child a socket pair, not
// a pipe) FIONREAD counts what f itself could read, so it is TIOCOUTQ, the
// send queue, which Linux counts in memory used rather than bytes: zero
// exactly when the reader has taken everything.
func PipeBacklog(f *os.File) (int, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int32
	var ioErr syscall.Errno
	err = raw.Control(func(fd uintptr) {
		req := uintptr(syscall.TIOCINQ)
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFSOCK {
			req = syscall.TIOCOUTQ
		}
		_, _, ioErr = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(unsafe.Pointer(&n)))
	})
	if err != nil {
		return 0, err
	}
	if ioErr != 0 {
		return 0, ioErr
	}
	return int(n), nil
}
