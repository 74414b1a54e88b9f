package rig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// reportWord starts the one line a bridge sends on its report socket: the
// number of processes the client started and left running when it exited.
const reportWord = "left-running "

// maxReport bounds what the grader reads from a report connection.
const maxReport = 4096

// Report is what a bridge reported on its socket of its own.
type Report struct {
	// Connected: a bridge connected to the socket.
	Connected bool
	// Reported: it sent its report before it ended. A bridge that
	// connected and ended without one was ended before it could.
	Reported bool
	// LeftRunning is how many processes the client started were still
	// running when it exited (the bridge, their subreaper, ended them).
	LeftRunning int
	// Problem says what was wrong with a report that came but could not
	// be read.
	Problem string
}

// ReportListener is the grader's end of a bridge's report: a socket in the
// rig's folder that the bridge connects to before it starts the client.
// Only the first connection is taken, so a client that connects later
// cannot speak for the bridge; and the client cannot write to the
// bridge's connection, unlike its stderr.
type ReportListener struct {
	ln   net.Listener
	done chan struct{}

	mu     sync.Mutex
	conn   net.Conn
	closed bool
	report Report
}

// ListenReport listens for a bridge's report at path, a socket given to
// owner (mode 0700).
func ListenReport(path string, owner *Owner) (*ReportListener, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening for the bridge's report: %w", err)
	}
	if err := owner.own(path, 0o700); err != nil {
		ln.Close()
		return nil, err
	}
	l := &ReportListener{ln: ln, done: make(chan struct{})}
	go l.take()
	return l, nil
}

// Path is the socket's path, for the bridge's --report.
func (l *ReportListener) Path() string { return l.ln.Addr().String() }

func (l *ReportListener) take() {
	defer close(l.done)
	c, err := l.ln.Accept()
	l.ln.Close() // the first connection only
	if err != nil {
		return
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		c.Close()
		return
	}
	l.conn = c
	l.report.Connected = true
	l.mu.Unlock()
	defer c.Close()
	b, err := io.ReadAll(io.LimitReader(c, maxReport))
	rep := parseReport(b)
	if err != nil && rep.Problem == "" && !rep.Reported {
		rep.Problem = "reading the bridge's report: " + err.Error()
	}
	l.mu.Lock()
	l.report.Reported, l.report.LeftRunning, l.report.Problem = rep.Reported, rep.LeftRunning, rep.Problem
	l.mu.Unlock()
}

func parseReport(b []byte) Report {
	var rep Report
	if len(b) == 0 {
		return rep
	}
	line, ok := bytes.CutSuffix(b, []byte("\n"))
	word, num, found := bytes.Cut(line, []byte(" "))
	n, err := strconv.Atoi(string(num))
	if !ok || !found || string(word)+" " != reportWord || err != nil || n < 0 {
		rep.Problem = fmt.Sprintf("the bridge's report %q is not %q and a count", b, reportWord)
		return rep
	}
	rep.Reported, rep.LeftRunning = true, n
	return rep
}

// Wait returns the report once the bridge's connection has ended, or what
// came of it when within passes or ctx ends first; the listener is closed
// then.
func (l *ReportListener) Wait(ctx context.Context, within time.Duration) Report {
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-l.done:
	case <-timer.C:
	case <-ctx.Done():
	}
	l.Close()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.report
}

// Close stops listening and ends the bridge's connection, if any.
func (l *ReportListener) Close() error {
	l.mu.Lock()
	l.closed = true
	c := l.conn
	l.mu.Unlock()
	err := l.ln.Close()
	if c != nil {
		c.Close()
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// sendReport writes the bridge's report on its connection.
func sendReport(c net.Conn, leftRunning int) error {
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := fmt.Fprintf(c, "%s%d\n", reportWord, leftRunning)
	return err
}
