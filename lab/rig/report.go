package rig

import (
	"bufio"
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

// reportWord starts the one line a bridge sends on its report socket when
// the client has exited: the number of processes the client started and
// left running.
const reportWord = "left-running "

// The grader may ask a bridge whether it is still at work: it writes
// pingLine on the report connection, and a bridge that runs answers
// aliveLine (a bridge the client stopped answers nothing).
const (
	pingLine  = "ping\n"
	aliveLine = "alive\n"
)

// maxReport bounds what the grader reads from a report connection; a line
// is much shorter.
const (
	maxReport     = 4096
	maxReportLine = 64
)

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
	// alive gets a value for each aliveLine the bridge sends.
	alive chan struct{}
	// taken is closed once the first connection is taken (or none will
	// be).
	taken chan struct{}

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
	l := &ReportListener{ln: ln, done: make(chan struct{}), alive: make(chan struct{}, 1), taken: make(chan struct{})}
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
		close(l.taken)
		return
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		close(l.taken)
		c.Close()
		return
	}
	l.conn = c
	l.report.Connected = true
	l.mu.Unlock()
	close(l.taken)
	defer c.Close()
	rep := l.read(bufio.NewReaderSize(io.LimitReader(c, maxReport), maxReportLine))
	l.mu.Lock()
	l.report.Reported, l.report.LeftRunning, l.report.Problem = rep.Reported, rep.LeftRunning, rep.Problem
	l.mu.Unlock()
}

// read reads the bridge's lines to the connection's end: an aliveLine
// for each ping, and its report once.
func (l *ReportListener) read(r *bufio.Reader) Report {
	var rep Report
	for {
		line, err := r.ReadSlice('\n')
		switch {
		case err == nil && string(line) == aliveLine:
			select {
			case l.alive <- struct{}{}:
			default:
			}
			continue
		case err == nil && !rep.Reported:
			if rep = parseReport(line); rep.Reported {
				continue
			}
		case err == nil:
			rep = Report{Problem: fmt.Sprintf("the bridge sent %q after its report", line)}
		case errors.Is(err, io.EOF) && len(line) == 0:
		case errors.Is(err, io.EOF):
			rep = Report{Problem: fmt.Sprintf("the bridge's report %q is not %q and a count and a newline", line, reportWord)}
		case errors.Is(err, bufio.ErrBufferFull):
			rep = Report{Problem: fmt.Sprintf("the bridge sent a line longer than %d bytes", maxReportLine)}
		case !rep.Reported:
			rep.Problem = "reading the bridge's report: " + err.Error()
		}
		return rep
	}
}

func parseReport(b []byte) Report {
	var rep Report
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

// Ping asks the bridge whether it is still at work, and reports whether
// it answered within within (or had already sent its report). A bridge
// that is stopped (SIGSTOP), or never connected, answers nothing; one that
// ended without a report neither.
func (l *ReportListener) Ping(ctx context.Context, within time.Duration) bool {
	timer := time.NewTimer(within)
	defer timer.Stop()
	if !closedBefore(ctx, l.taken, timer.C) {
		return false
	}
	l.mu.Lock()
	c, reported := l.conn, l.report.Reported
	l.mu.Unlock()
	if c == nil {
		return false
	}
	if reported {
		return true
	}
	select { // an answer to an earlier ping does not count
	case <-l.alive:
	default:
	}
	c.SetWriteDeadline(time.Now().Add(within))
	if _, err := io.WriteString(c, pingLine); err != nil {
		return l.reported()
	}
	select {
	case <-l.alive:
		return true
	case <-l.done:
		return l.reported()
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}

func (l *ReportListener) reported() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.report.Reported
}

// Wait returns the report once the bridge's connection has ended, or what
// came of it when within passes or ctx ends first; the listener is closed
// then.
func (l *ReportListener) Wait(ctx context.Context, within time.Duration) Report {
	timer := time.NewTimer(within)
	defer timer.Stop()
	closedBefore(ctx, l.done, timer.C)
	l.Close()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.report
}

// closedBefore waits for ch to be closed, and reports whether it was
// before deadline fired and before ctx ended.
func closedBefore(ctx context.Context, ch <-chan struct{}, deadline <-chan time.Time) bool {
	select {
	case <-ch:
		return true
	case <-deadline:
	case <-ctx.Done():
	}
	return false
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

// reportConn is the bridge's end of its report connection: it answers
// the grader's pings until the client has exited, then sends its report.
type reportConn struct {
	c    net.Conn
	done chan struct{}

	mu   sync.Mutex // one line at a time
	sent bool       // the report is sent: no line follows it
}

// answerPings starts answering the grader's pings on c.
func answerPings(c net.Conn) *reportConn {
	rc := &reportConn{c: c, done: make(chan struct{})}
	go func() {
		defer close(rc.done)
		r := bufio.NewReaderSize(c, maxReportLine)
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return // the grader closed its end, or sent what it never sends
			}
			if string(line) == pingLine {
				rc.write(aliveLine, false)
			}
		}
	}()
	return rc
}

func (rc *reportConn) write(s string, last bool) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.sent {
		return nil
	}
	rc.sent = last
	rc.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := io.WriteString(rc.c, s)
	return err
}

// send writes the bridge's report.
func (rc *reportConn) send(leftRunning int) error {
	return rc.write(fmt.Sprintf("%s%d\n", reportWord, leftRunning), true)
}

// close ends the connection and waits for the ping answerer to end.
func (rc *reportConn) close() {
	rc.c.Close()
	<-rc.done
}
