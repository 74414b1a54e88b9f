package proc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
)

// Orphans hands the lab the processes its servers leave behind. Made with
// AdoptOrphans, the lab is a child subreaper (PR_SET_CHILD_SUBREAPER): a
// process whose parent ends while it runs, such as a daemon a server
// started with setsid and so outside the group Kill ends, becomes the
// lab's child instead of init's, and KillAll can end it. It holds for the
// whole lab process, so only a command that is the whole process (lab
// grade, lab capture) may use it.
type Orphans struct {
	self int
}

// AdoptOrphans makes the lab process a child subreaper.
func AdoptOrphans() (*Orphans, error) {
	if err := prctl(prSetChildSubreaper, 1); err != nil {
		return nil, fmt.Errorf("becoming the subreaper of the servers' processes: %w", err)
	}
	return &Orphans{self: os.Getpid()}, nil
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER, which package syscall
// does not name.
const prSetChildSubreaper = 36

// maxOrphanRounds bounds KillAll's rounds: each ends the lab's children of
// the moment, whose own children are handed to the lab in turn.
const maxOrphanRounds = 64

// KillAll kills and reaps every child of the lab process, round after
// round, until none is left (a killed daemon's children are handed to
// the lab in turn), ctx ends or maxOrphanRounds have passed. It returns
// how many were still running (those that had already exited are only
// reaped). Call it only once the lab has waited for every
// process it started itself: those are its children too.
func (o *Orphans) KillAll(ctx context.Context) (int, error) {
	ended := 0
	for round := 0; round < maxOrphanRounds; round++ {
		kids, running, err := childrenOf(o.self)
		if err != nil || len(kids) == 0 {
			return ended, err
		}
		for _, pid := range kids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		reaped := make(chan struct{})
		go func() {
			defer close(reaped)
			for _, pid := range kids {
				var ws syscall.WaitStatus
				for {
					_, err := syscall.Wait4(pid, &ws, 0, nil)
					if err != syscall.EINTR {
						break
					}
				}
			}
		}()
		select {
		case <-reaped:
		case <-ctx.Done():
			return ended, fmt.Errorf("ending the processes the servers left running: %w", ctx.Err())
		}
		ended += running
	}
	return ended, fmt.Errorf("the servers' processes were still starting new ones after %d rounds of killing them", maxOrphanRounds)
}

// Close stops the lab being a subreaper.
func (o *Orphans) Close() error {
	if err := prctl(prSetChildSubreaper, 0); err != nil {
		return fmt.Errorf("no longer the subreaper of the servers' processes: %w", err)
	}
	return nil
}

func prctl(option, arg uintptr) error {
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg, 0, 0, 0, 0); errno != 0 {
		return errno
	}
	return nil
}

// childrenOf lists the processes whose parent is pid, from /proc, and
// counts those still running: not a zombie, not already exiting and not
// holding a SIGKILL it has yet to act on. A process in the server's own
// group that the group's kill has just reached is handed to the lab as it
// dies; that kill ended it, and it was not left running.
func childrenOf(pid int) (kids []int, running int, err error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, 0, fmt.Errorf("listing processes: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, 0, fmt.Errorf("listing processes: %w", err)
	}
	for _, name := range names {
		p, err := strconv.Atoi(name)
		if err != nil || p == pid {
			continue
		}
		if ppid, live := parentOf(p); ppid == pid {
			kids = append(kids, p)
			if live && !killPending(p) {
				running++
			}
		}
	}
	return kids, running, nil
}

// parentOf reads the parent of pid from /proc/PID/stat (at most 4 KiB),
// and whether it is live: neither a zombie nor exiting (PF_EXITING). The
// parent is -1 when the file cannot be read (the process has gone).
func parentOf(pid int) (ppid int, live bool) {
	b, ok := readProc(pid, "stat")
	if !ok {
		return -1, false
	}
	// pid (comm) state ppid pgrp session tty_nr tpgid flags ...: comm may
	// hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1, false
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 7 {
		return -1, false
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return -1, false
	}
	flags, _ := strconv.ParseUint(string(fields[6]), 10, 64)
	const pfExiting = 0x4
	state := string(fields[0])
	return ppid, state != "Z" && state != "X" && flags&pfExiting == 0
}

// killPending reports whether pid holds a SIGKILL it has not acted on yet,
// from the SigPnd and ShdPnd masks of /proc/PID/status.
func killPending(pid int) bool {
	b, ok := readProc(pid, "status")
	if !ok {
		return false
	}
	const sigkillBit = 1 << (uint(syscall.SIGKILL) - 1)
	for _, line := range bytes.Split(b, []byte("\n")) {
		name, mask, found := bytes.Cut(line, []byte(":"))
		if !found || (string(name) != "SigPnd" && string(name) != "ShdPnd") {
			continue
		}
		if m, err := strconv.ParseUint(string(bytes.TrimSpace(mask)), 16, 64); err == nil && m&sigkillBit != 0 {
			return true
		}
	}
	return false
}

// readProc reads /proc/PID/NAME, at most 4 KiB.
func readProc(pid int, name string) ([]byte, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/" + name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	return b, err == nil
}
