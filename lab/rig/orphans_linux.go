//go:build linux

package rig

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// adoptOrphans makes this process the subreaper of everything it starts:
// a process whose parent ends is handed to it rather than to init, so the
// bridge sees the servers a client left running when it exited.
func adoptOrphans() {
	const prSetChildSubreaper = 36
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// endOrphans reaps the children that have ended, then ends and counts the
// ones still running: at this point every one of them was left behind by
// the client.
func endOrphans() int {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err != nil || pid == 0 {
			break // no child (ECHILD), or only running ones
		}
	}
	alive := children()
	for _, pid := range alive {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for range alive {
		var ws syscall.WaitStatus
		syscall.Wait4(-1, &ws, 0, nil)
	}
	return len(alive)
}

// children lists this process's children, from /proc.
func children() []int {
	me := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 2 {
			if ppid, err := strconv.Atoi(f[1]); err == nil && ppid == me && f[0] != "Z" {
				out = append(out, pid)
			}
		}
	}
	return out
}
