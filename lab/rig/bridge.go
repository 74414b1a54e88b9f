package rig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
)

// LeftRunning starts the line a bridge with no report socket writes on
// the client's stderr when the client exited and left servers it started
// running, for a person to read. The grader never reads it there (the
// client could forge it): its bridge reports on a socket of its own (see
// BridgeReport and ListenReport).
const LeftRunning = "lab relay: left running:"

// Bridge runs a client under test in a network of its own (a sandbox's
// loopback only) where the rig's HTTP servers are not: for each pair it
// listens at the address and forwards every connection to the socket, then
// runs the command with the bridge's own stdio, and returns its exit
// status when it ends. Processes the command started and left running
// when it ended are ended, and reported (see LeftRunning). An address already taken is taken by the rig
// itself (the client shares the rig's network): that pair needs no
// bridge. SIGTERM and SIGINT are passed on to the command.
func Bridge(ctx context.Context, pairs []BridgePair, command []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	return BridgeReport(ctx, pairs, "", command, stdin, stdout, stderr)
}

// BridgeReport is Bridge, reporting on the socket report (when not empty)
// rather than on stderr: it connects there before it starts the command,
// so that its connection is the first the grader takes, answers the
// grader's pings while the command runs (see ReportListener.Ping), and
// when the command has exited it sends how many processes the command
// left running (see ListenReport).
func BridgeReport(ctx context.Context, pairs []BridgePair, report string, command []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(command) == 0 {
		return 0, errors.New("no command to run behind the bridge")
	}
	var rc *reportConn
	if report != "" {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", report)
		if err != nil {
			return 0, fmt.Errorf("reaching the grader's report socket: %w", err)
		}
		rc = answerPings(c)
		defer rc.close()
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel() // ends the listeners and every forwarded connection
		wg.Wait()
	}()
	for _, p := range pairs {
		ln, err := net.Listen("tcp", p.Addr)
		if errors.Is(err, syscall.EADDRINUSE) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("bridging %s: %w", p.Addr, err)
		}
		context.AfterFunc(ctx, func() { ln.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			forward(ctx, ln, p.Socket)
		}()
	}
	adoptOrphans()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin = stdin
	// Writers that are not files get pipes of the bridge's own, so that a
	// process left running with them open cannot keep Wait from returning.
	var copies sync.WaitGroup
	var ends []*os.File
	for _, o := range []struct {
		w   io.Writer
		dst *io.Writer
	}{{stdout, &cmd.Stdout}, {stderr, &cmd.Stderr}} {
		if _, ok := o.w.(*os.File); ok || o.w == nil {
			*o.dst = o.w
			continue
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			return 0, err
		}
		*o.dst = pw
		ends = append(ends, pw)
		copies.Add(1)
		go func(w io.Writer) { defer copies.Done(); defer pr.Close(); io.Copy(w, pr) }(o.w)
	}
	defer copies.Wait()
	closeEnds := func() {
		for _, f := range ends {
			f.Close()
		}
		ends = nil
	}
	defer closeEnds()
	// Signals are caught before the command starts, so none is lost.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s: %w", command[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			cmd.Process.Signal(sig)
		case err := <-done:
			// A server the client started and did not end is now ours.
			n := endOrphans()
			closeEnds()
			copies.Wait()
			switch {
			case rc != nil:
				if err := rc.send(n); err != nil {
					return 0, fmt.Errorf("reporting to the grader: %w", err)
				}
			case n > 0:
				fmt.Fprintf(stderr, "%s %d server process(es) the client started were still running when it exited; the bridge ended them\n", LeftRunning, n)
			}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal()), nil
				}
				return ee.ExitCode(), nil
			}
			if err != nil {
				return 0, err
			}
			return 0, nil
		case <-ctx.Done():
			cmd.Process.Kill()
		}
	}
}

// forward joins each connection the listener accepts to a new connection
// to the socket.
func forward(ctx context.Context, ln net.Listener, socket string) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			var d net.Dialer
			s, err := d.DialContext(ctx, "unix", socket)
			if err != nil {
				return
			}
			defer s.Close()
			stop := context.AfterFunc(ctx, func() { c.Close(); s.Close() })
			defer stop()
			go func() {
				io.Copy(s, c)
				if u, ok := s.(*net.UnixConn); ok {
					u.CloseWrite()
				}
			}()
			io.Copy(c, s)
		}()
	}
}
