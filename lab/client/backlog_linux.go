package client

import (
	"os"
	"syscall"
	"unsafe"
)

// PipeBacklog returns how many bytes written to the pipe f are still
// waiting to be read (the FIONREAD ioctl, which Linux supports on pipes).
func PipeBacklog(f *os.File) (int, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int32
	var ioErr syscall.Errno
	err = raw.Control(func(fd uintptr) {
		_, _, ioErr = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	})
	if err != nil {
		return 0, err
	}
	if ioErr != 0 {
		return 0, ioErr
	}
	return int(n), nil
}
