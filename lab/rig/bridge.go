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
	rc, err := dialReport(ctx, report)
	if err != nil {
		return 0, err
	}
	if rc != nil {
		defer rc.close()
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel() // ends the listeners and every forwarded connection
		wg.Wait()
	}()
	if err := listenPairs(ctx, pairs, &wg); err != nil {
		return 0, err
	}
	adoptOrphans()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin = stdin
	out, err := bridgeOutputs(cmd, stdout, stderr)
	if err != nil {
		return 0, err
	}
	defer out.wait()
	defer out.closeEnds()
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
			out.closeEnds()
			out.wait()
			if err := reportLeftRunning(rc, stderr, n); err != nil {
				return 0, err
			}
			return exitStatus(err)
		case <-ctx.Done():
			cmd.Process.Kill()
		}
	}
}

// dialReport connects to the grader's report socket and answers its pings
// from then on; with no socket (report is "") it returns nil.
func dialReport(ctx context.Context, report string) (*reportConn, error) {
	if report == "" {
		return nil, nil
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", report)
	if err != nil {
		return nil, fmt.Errorf("reaching the grader's report socket: %w", err)
	}
	return answerPings(c), nil
}

// listenPairs listens at each pair's address and forwards what comes
// there to its socket until ctx ends, each forwarder counted in wg. An
// address already taken is skipped: the rig itself holds it.
func listenPairs(ctx context.Context, pairs []BridgePair, wg *sync.WaitGroup) error {
	for _, p := range pairs {
		ln, err := net.Listen("tcp", p.Addr)
		if errors.Is(err, syscall.EADDRINUSE) {
			continue
		}
		if err != nil {
			return fmt.Errorf("bridging %s: %w", p.Addr, err)
		}
		context.AfterFunc(ctx, func() { ln.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			forward(ctx, ln, p.Socket)
		}()
	}
	return nil
}

// bridgedOutputs are the pipes of the bridge's own that stand between a
// command and the writers given for its stdout and stderr.
type bridgedOutputs struct {
	copies sync.WaitGroup
	ends   []*os.File // the pipes' write ends, the command's
}

// bridgeOutputs gives cmd its stdout and stderr. Writers that are not
// files get pipes of the bridge's own, copied to them, so that a process
// left running with them open cannot keep Wait from returning.
func bridgeOutputs(cmd *exec.Cmd, stdout, stderr io.Writer) (*bridgedOutputs, error) {
	out := &bridgedOutputs{}
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
			out.closeEnds()
			out.wait()
			return nil, err
		}
		*o.dst = pw
		out.ends = append(out.ends, pw)
		out.copies.Add(1)
		go func(w io.Writer) { defer out.copies.Done(); defer pr.Close(); io.Copy(w, pr) }(o.w)
	}
	return out, nil
}

// closeEnds closes the command's ends of the pipes (once the command has
// ended: what it left running then writes into nothing).
func (o *bridgedOutputs) closeEnds() {
	for _, f := range o.ends {
		f.Close()
	}
	o.ends = nil
}

// wait returns once everything written into the pipes is copied.
func (o *bridgedOutputs) wait() { o.copies.Wait() }

// reportLeftRunning says how many processes the command left running: to
// the grader's report socket when there is one, else on stderr for a
// person to read (and only when there were any).
func reportLeftRunning(rc *reportConn, stderr io.Writer, n int) error {
	switch {
	case rc != nil:
		if err := rc.send(n); err != nil {
			return fmt.Errorf("reporting to the grader: %w", err)
		}
	case n > 0:
		fmt.Fprintf(stderr, "%s %d %s\n", LeftRunning, n, LeftRunningText(n))
	}
	return nil
}

// LeftRunningText says that n server processes the client started outlived
// it ("1 server process the client started was still running ..."), after
// the count.
func LeftRunningText(n int) string {
	if n == 1 {
		return "server process the client started was still running when it exited; the bridge ended it"
	}
	return "server processes the client started were still running when it exited; the bridge ended them"
}

// exitStatus is the exit status a command's Wait error stands for: its
// exit code, or 128 plus the signal that ended it; an error that is no
// exit (the command could not be waited for) is returned.
func exitStatus(err error) (int, error) {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 0, err
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
