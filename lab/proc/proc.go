// Package proc runs a program under test as a process, and nothing else:
// the Process and Starter abstraction (a local Command in its own process
// group, an in-process ServeFunc), how a process ended (Exit), ending what
// it started (groups, orphans), its stdin backlog, and what every way of
// running a program shares: stopping it when its context ends, explaining
// an exec that failed, and waiting for the last of its output without
// waiting forever.
package proc

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// KillOnCancel calls kill once ctx ends, unless done is closed first (the
// process ended by itself). It returns at once; the watch runs on its own.
func KillOnCancel(ctx context.Context, done <-chan struct{}, kill func()) {
	go func() {
		select {
		case <-ctx.Done():
			kill()
		case <-done:
		}
	}()
}

// Status is how a process ended: its exit code, or -1 and the name of the
// signal that ended it ("killed"), or -1 and the error that kept its end
// from being seen.
type Status struct {
	Code   int
	Signal string
	Err    error
}

// StatusOf reads a process's end from what os/exec's Wait returned.
func StatusOf(st *os.ProcessState, waitErr error) Status {
	if st == nil {
		if waitErr == nil {
			waitErr = errors.New("no process state")
		}
		return Status{Code: -1, Err: waitErr}
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return Status{Code: -1, Signal: ws.Signal().String()}
	}
	return Status{Code: st.ExitCode()}
}

// StatusOfCode reads a process's end from an exit code that a shell or an
// init process reports for its child: 128+N means signal N.
func StatusOfCode(code int) Status {
	if code > 128 && code < 128+65 {
		return Status{Code: -1, Signal: syscall.Signal(code - 128).String()}
	}
	return Status{Code: code}
}

// Drain waits until done is closed (the process's output has been read to
// its end). When that takes longer than within, something the process left
// behind holds its output open: Drain calls giveUp (which must make done
// close soon, by closing or killing what holds it), waits for done, and
// returns true.
func Drain(done <-chan struct{}, within time.Duration, giveUp func()) bool {
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C:
	}
	giveUp()
	<-done
	return true
}

// Done returns a channel closed once wait returns, such as a WaitGroup's
// Wait.
func Done(wait func()) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		wait()
		close(c)
	}()
	return c
}
