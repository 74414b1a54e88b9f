package httpserverlesson

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
)

// The kind's deadlines at time scale 1. Each is many times what a correct
// server needs on a machine at normal speed.
const (
	// ReadyDeadline is how long a copy may take to accept a TCP
	// connection on 127.0.0.1:PORT once started.
	ReadyDeadline = 10 * time.Second
	// AnswerIdle is the longest wait for an answer's headers, and then
	// for each next bytes of its body.
	AnswerIdle = 5 * time.Second
	// AnswerTotal is how long one exchange may take in all.
	AnswerTotal = 10 * time.Second
	// StreamEnd is how long an event stream may stay open once it has
	// carried its response.
	StreamEnd = 2 * time.Second
	// ExitDeadline is how long a copy may take to exit after SIGTERM.
	ExitDeadline = 5 * time.Second
	// GoneWait is how long the grader waits, after an exchange that got
	// no answer, to see whether the copy has exited.
	GoneWait = 2 * time.Second
)

// outputLineMax caps a line of a copy's stdout or stderr in the record.
const outputLineMax = 4 << 10

// serverCopy is one running copy of the student's server.
type serverCopy struct {
	name string
	port int
	p    proc.Process
	// dial connects to the copy (over TCP, or through its tunnel);
	// release lets go of the tunnel once the copy has ended.
	dial    func(ctx context.Context) (net.Conn, error)
	release func()
	// terminated is set once the grader sent SIGTERM.
	terminated bool
	// output is closed once both output streams are read to their end.
	output chan struct{}
}

// addr is where the copy listens.
func (c *serverCopy) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)) }

// exited reports whether the copy has ended, and how.
func (c *serverCopy) exited() (proc.Exit, bool) {
	select {
	case <-c.done():
		return c.p.Wait(), true
	default:
		return proc.Exit{}, false
	}
}

// done is closed once the copy has ended.
func (c *serverCopy) done() <-chan struct{} {
	if d, ok := c.p.(interface{ Done() <-chan struct{} }); ok {
		return d.Done()
	}
	ch := make(chan struct{})
	go func() { c.p.Wait(); close(ch) }()
	return ch
}

// startError is a copy that could not be started or never listened: the
// student's program could not be graded. It is late when the copy did not
// listen within the wait for it, a deadline that ran out.
type startError struct {
	why  string
	late bool
}

func (e *startError) Error() string { return e.why }

// freePorts asks the system for n loopback ports no one listens on, all
// different: each is held until all are found.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// startCopy starts copy name of the student's server through l, told
// to listen on port, records its output, and waits until it accepts a
// connection there.
func startCopy(ctx context.Context, l *launch, name string, port int, ready time.Duration, maxOutput int64, rec func(event.Record)) (*serverCopy, error) {
	st, err := l.start(ctx, name, port)
	if err != nil {
		return nil, err
	}
	p := st.p
	c := &serverCopy{name: name, port: port, p: p, dial: st.dial, release: st.close, output: make(chan struct{})}
	rec(event.Record{Kind: event.Start, Server: name, Text: "started with PORT=" + strconv.Itoa(port)})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); readOutput(p.Stderr(), name, event.Stderr, "", maxOutput, rec) }()
	go func() { defer wg.Done(); readOutput(p.Stdout(), name, event.Note, "stdout: ", maxOutput, rec) }()
	go func() { wg.Wait(); close(c.output) }()
	p.Stdin().Close() // an HTTP server reads nothing on stdin
	if err := c.waitListening(ctx, ready); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

// waitListening waits until a TCP connect to the copy's port succeeds.
func (c *serverCopy) waitListening(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		conn, err := c.dial(dctx)
		cancel()
		if err == nil {
			conn.Close()
			return nil
		}
		if exit, gone := c.exited(); gone {
			return &startError{why: fmt.Sprintf("copy %s of the server %s before it listened on 127.0.0.1:%d, the port the grader gave it in the environment variable PORT; its stderr is in the transcript", c.name, exit, c.port)}
		}
		if time.Now().After(deadline) {
			return &startError{why: fmt.Sprintf("copy %s of the server never listened on 127.0.0.1:%d within %v: the grader starts the server with the environment variable PORT set to a free port and waits for a TCP connection there to succeed. Read PORT from the environment and listen on 127.0.0.1 with it (not on a port of your own, and not on \"localhost\" alone, which may mean ::1)", c.name, c.port, within.Round(time.Millisecond)), late: true}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// terminate sends the copy SIGTERM and waits up to within for it to exit.
func (c *serverCopy) terminate(within time.Duration) (proc.Exit, bool, error) {
	t, ok := c.p.(proc.Terminator)
	if !ok {
		return proc.Exit{}, false, errors.New("the lab cannot send SIGTERM to a program started this way")
	}
	c.terminated = true
	if err := t.Terminate(); err != nil {
		return proc.Exit{}, false, fmt.Errorf("sending SIGTERM: %w", err)
	}
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case <-c.done():
		return c.p.Wait(), true, nil
	case <-timer.C:
		return proc.Exit{}, false, nil
	}
}

// kill ends the copy and everything it started, and waits for its output
// to close (a grandchild holding it is cut loose after a short wait).
func (c *serverCopy) kill() {
	c.p.Kill()
	<-c.done()
	c.release()
	proc.Drain(c.output, 2*time.Second, func() {
		if oc, ok := c.p.(proc.OutputCloser); ok {
			oc.CloseOutput()
		}
	})
}

// readOutput records each line of a copy's output stream, cut at
// outputLineMax, until the stream ends or max bytes have come; past max
// the rest is read and dropped, with one note.
func readOutput(r io.Reader, copy string, kind event.Kind, prefix string, max int64, rec func(event.Record)) {
	if max <= 0 {
		max = 8 << 20
	}
	br := bufio.NewReaderSize(r, outputLineMax)
	var read int64
	for {
		line, err := br.ReadSlice('\n')
		read += int64(len(line))
		if len(line) > 0 && read <= max {
			text := string(line)
			if errors.Is(err, bufio.ErrBufferFull) {
				text += "… [cut: the line goes on past " + strconv.Itoa(outputLineMax) + " bytes]"
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = br.ReadSlice('\n')
					read += int64(len(line))
				}
			}
			rec(event.Record{Kind: kind, Server: copy, Text: prefix + trimNewline(text)})
		}
		if read > max {
			rec(event.Record{Kind: event.Note, Server: copy, Text: fmt.Sprintf("the copy wrote more than %d bytes on one stream; the rest is not kept", max)})
			io.Copy(io.Discard, r)
			return
		}
		if err != nil {
			return
		}
	}
}

func trimNewline(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	return s
}
