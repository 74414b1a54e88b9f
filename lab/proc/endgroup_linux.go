package proc

import (
	"syscall"
	"unsafe"
)

// endGroupOnExit waits until the process pid has exited, without reaping
// it (waitid with WNOWAIT), then kills its process group: while the leader
// is a zombie its group id cannot name another group.
func endGroupOnExit(pid int) {
	const (
		pPID    = 1          // P_PID
		wExited = 0x4        // WEXITED
		wNoWait = 0x01000000 // WNOWAIT
	)
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			break
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}
