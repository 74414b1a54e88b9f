package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/wire"
)

// Stream is a Transport over a byte stream that is already open: the client
// writes its messages to W, one to a line, and reads the server's from R
// with the wire framer, so a message split across many reads still arrives
// whole. Tests connect it to a fake server through io.Pipe.
type Stream struct {
	R io.Reader
	W io.WriteCloser
	// MaxLine bounds one message from the server; 0 means wire.DefaultMaxLine.
	MaxLine int
}

// Connect starts reading the server's messages.
func (s Stream) Connect(_ context.Context, r Receiver) (Conn, error) {
	c := newStreamConn(s.W, r)
	go c.read(s.R, s.MaxLine, c.broke)
	return c, nil
}

// streamConn writes lines to a server and reads its lines back.
type streamConn struct {
	w          io.WriteCloser
	recv       Receiver
	mu         sync.Mutex // held while a line is written
	broken     error      // set when a line went out half written
	brokenOnce sync.Once
	closeOnce  sync.Once
}

func newStreamConn(w io.WriteCloser, r Receiver) *streamConn {
	return &streamConn{w: w, recv: r}
}

func (c *streamConn) wantsCancelNotice() {}

// writeDeadliner is a writer whose writes a deadline can cut short, as a
// pipe to a child process is.
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// Send writes the message as one line. When the writer takes deadlines
// (a pipe to a process does), ctx bounds the write. A writer without them
// (io.Pipe) is written to from another goroutine, abandoned when ctx ends.
// Either way a line that may have gone out in part leaves the stream
// without framing, so the connection is then broken.
func (c *streamConn) Send(ctx context.Context, m *Outgoing) error {
	line := make([]byte, 0, len(m.Body)+1)
	line = append(append(line, m.Body...), '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("not sent: %w", err)
	}
	d, ok := c.w.(writeDeadliner)
	if !ok {
		done := make(chan error, 1)
		go func() {
			_, err := c.w.Write(line)
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				return c.breakOff(fmt.Errorf("writing to the server: %w", err))
			}
			return nil
		case <-ctx.Done():
			return c.breakOff(fmt.Errorf("the server did not read a message in time, which may have gone out in part: %w", ctx.Err()))
		}
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = d.SetWriteDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = d.SetWriteDeadline(time.Unix(1, 0)) })
	defer func() {
		stop()
		_ = d.SetWriteDeadline(time.Time{})
	}()
	n, err := c.w.Write(line)
	switch {
	case err == nil:
		return nil
	case n > 0:
		return c.breakOff(fmt.Errorf("a message to the server was cut off after %d of its %d bytes: %w", n, len(line), err))
	case ctx.Err() != nil:
		return fmt.Errorf("the server did not read the request: %w", ctx.Err())
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The deadline passed a moment before the context saw it.
		return fmt.Errorf("the server did not read the request: %w", context.DeadlineExceeded)
	}
	return c.breakOff(fmt.Errorf("writing to the server: %w", err))
}

// breakOff marks the stream unusable. c.mu must be held.
func (c *streamConn) breakOff(err error) error {
	c.broken = err
	c.broke(err)
	return err
}

// broke reports the end of the connection to the Receiver, once.
func (c *streamConn) broke(err error) {
	c.brokenOnce.Do(func() { c.recv.Broken(err) })
}

// Close closes the server's input.
func (c *streamConn) Close() error {
	var err error
	c.closeOnce.Do(func() { err = c.w.Close() })
	return err
}

// read hands every line of the server's output to the Receiver until the
// output ends, then calls end with the reason.
func (c *streamConn) read(r io.Reader, maxLine int, end func(error)) {
	f := wire.NewFramer(r, wire.MaxLine(maxLine))
	for {
		line, err := f.Next()
		switch {
		case err == nil:
			m, why := parseIncoming(line)
			if m == nil {
				c.recv.Reject(line, why)
				continue
			}
			c.recv.Deliver(m, nil)
		case errors.Is(err, wire.ErrLineTooLong):
			c.recv.Reject(nil, err.Error())
		case errors.Is(err, io.EOF):
			end(errors.New("the server closed its output"))
			return
		default:
			end(err)
			return
		}
	}
}

// Command is a Transport that starts a server program and speaks to it over
// its stdin and stdout. The server's stderr is its log: each line goes to
// Log, and the last ones are quoted when the server dies.
//
// Closing the connection closes the server's stdin, waits up to Grace for
// it to exit, then kills it and everything it started. A program that
// cannot be started fails Connect at once; one that exits fails every
// waiting request at once.
type Command struct {
	// Starter starts the program: a proc.Command, or a sandbox.
	Starter proc.Starter
	// Log receives each line the server writes to stderr; nil drops them.
	Log func(line string)
	// Grace is how long Close waits for the server to exit on its own;
	// 0 means two seconds.
	Grace time.Duration
	// MaxLine bounds one message from the server; 0 means wire.DefaultMaxLine.
	MaxLine int
}

// Connect starts the server.
func (t Command) Connect(ctx context.Context, r Receiver) (Conn, error) {
	if t.Starter == nil {
		return nil, errors.New("no server command to start")
	}
	p, err := t.Starter.Start(context.WithoutCancel(ctx))
	if err != nil {
		return nil, fmt.Errorf("the server could not be started: %w", err)
	}
	grace := t.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	c := &processConn{streamConn: newStreamConn(p.Stdin(), r), p: p, grace: grace, exited: make(chan struct{})}
	c.stderr = &tailLog{log: t.Log}
	stderrDone := make(chan struct{})
	c.stderrDone = stderrDone
	go func() {
		defer close(stderrDone)
		c.stderr.drain(p.Stderr())
	}()
	go func() {
		c.exit = p.Wait()
		close(c.exited)
	}()
	go c.read(p.Stdout(), t.MaxLine, func(err error) {
		// The output is over: say why, with the exit status when the
		// process has ended, and its last words on stderr.
		select {
		case <-c.exited:
			select {
			case <-stderrDone:
			case <-time.After(grace):
			}
			c.broke(fmt.Errorf("the server %s%s", c.exit, c.stderr.tail()))
		case <-time.After(grace):
			c.broke(fmt.Errorf("the server closed its output but is still running (%v)%s", err, c.stderr.tail()))
		}
	})
	return c, nil
}

// processConn is a streamConn to a server process the client started.
type processConn struct {
	*streamConn
	p         proc.Process
	grace     time.Duration
	stderr    *tailLog
	exited    chan struct{}
	exit      proc.Exit
	closeOnce sync.Once
	// stderrDone is closed once every stderr line has gone to Log.
	stderrDone chan struct{}
}

// Close closes the server's stdin, gives it Grace to exit, then kills it.
// It returns once the server's last stderr lines have gone to Log, or after
// Grace more when something the server left behind still holds its stderr.
func (c *processConn) Close() error {
	c.closeOnce.Do(func() {
		c.streamConn.Close()
		select {
		case <-c.exited:
		case <-time.After(c.grace):
			c.p.Kill()
			<-c.exited
		}
		select {
		case <-c.stderrDone:
		case <-time.After(c.grace):
		}
	})
	return nil
}

// tailLog passes a server's stderr on line by line and keeps the last
// lines, bounded, to quote when the server dies.
type tailLog struct {
	log  func(string)
	mu   sync.Mutex
	last []string
}

const (
	tailLines   = 3
	tailLineMax = 200
)

func (t *tailLog) drain(r io.Reader) {
	f := wire.NewFramer(r, wire.MaxLine(64<<10))
	for {
		line, err := f.Next()
		if errors.Is(err, wire.ErrLineTooLong) {
			continue
		}
		if err != nil {
			return
		}
		s := strings.ToValidUTF8(string(bytes.TrimRight(line, " \t")), "\uFFFD")
		if t.log != nil {
			t.log(s)
		}
		t.mu.Lock()
		if len(s) > tailLineMax {
			cut := tailLineMax
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			s = s[:cut] + "…"
		}
		t.last = append(t.last, s)
		if len(t.last) > tailLines {
			t.last = t.last[1:]
		}
		t.mu.Unlock()
	}
}

// tail quotes the last stderr lines, for an error message.
func (t *tailLog) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.last) == 0 {
		return "; it wrote nothing to stderr"
	}
	return "; its last words on stderr: " + strings.Join(t.last, " | ")
}
