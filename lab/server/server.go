// Package server is mcplab's hand-written stdio JSON-RPC server loop and the
// reference handler of lesson 1. The loop owns the concurrency, as net/http's
// does: it reads lines with the wire framer, answers bad lines itself, and
// runs each request in its own goroutine so a slow one never holds up the
// next. A Handler that is also an Inliner has its quick requests answered
// inline instead, before the next line is read, so their answers leave in
// the order their lines came.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcplab/mcplab/lab/wire"
)

// A Handler answers requests. It returns the result to send, or an error:
// a *wire.Error is sent as it is, any other error as -32603.
type Handler interface {
	Handle(ctx context.Context, req *wire.Message) (any, error)
}

// An Inliner is a Handler that says which requests it answers at once. The
// Server answers a request for which Inline reports true before it reads the
// next line, so the answers to a run of quick requests and bad lines leave in
// the order the lines came in; every other request runs in a goroutine of its
// own, bounded by MaxInFlight, and is answered when it is done. A Handler that
// is not an Inliner has every request run in its own goroutine.
//
// Inline must be quick and must not block: it runs on the server's read loop.
// A request answered inline holds up the lines behind it for as long as its
// Handle call takes, so only requests that never wait belong inline.
type Inliner interface {
	Handler
	Inline(req *wire.Message) bool
}

// HandlerFunc lets an ordinary function be a Handler.
type HandlerFunc func(ctx context.Context, req *wire.Message) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req *wire.Message) (any, error) { return f(ctx, req) }

// DefaultMaxInFlight is how many requests a Server runs in goroutines at
// once before it stops reading until one finishes.
const DefaultMaxInFlight = 1024

// Server reads messages from one input stream and writes answers to one
// output stream, logging to a third.
type Server struct {
	// Handler answers the requests. Notifications are logged and never
	// answered.
	Handler Handler
	// Log receives the log lines ("log: ready", one line per message read).
	// It must not be the output stream. Nil means no logs.
	Log io.Writer
	// MaxLine is the longest line accepted, in bytes; 0 means
	// wire.DefaultMaxLine.
	MaxLine int
	// MaxInFlight bounds the requests running in goroutines of their own
	// at once (an Inliner's inline requests are answered one by one on the
	// read loop and do not count); 0 means DefaultMaxInFlight.
	MaxInFlight int
}

// Serve reads lines from in until it ends, answering on out. When in ends it
// waits for every request in flight to be answered, then returns nil. When
// ctx is done it stops reading, cancels the requests in flight, waits for
// their answers, and returns ctx.Err(). A write to out that fails is logged
// and returned once serving ends.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &conn{
		srv:   s,
		out:   wire.NewLineWriter(out),
		slots: make(chan struct{}, cmp(s.MaxInFlight, DefaultMaxInFlight)),
	}
	c.logf("ready")

	lines := make(chan readResult)
	next := make(chan struct{})
	go func() {
		defer close(lines)
		f := wire.NewFramer(in, wire.MaxLine(s.MaxLine))
		for {
			line, err := f.Next()
			select {
			case lines <- readResult{line, err}:
			case <-ctx.Done():
				return
			}
			if err != nil && !errors.Is(err, wire.ErrLineTooLong) {
				return
			}
			select {
			case <-next: // the line has been handled; its buffer may be reused
			case <-ctx.Done():
				return
			}
		}
	}()

	var stopErr error
loop:
	for {
		select {
		case <-ctx.Done():
			stopErr = ctx.Err()
			break loop
		case r, ok := <-lines:
			if !ok {
				break loop
			}
			switch {
			case r.err == nil:
				c.handleLine(ctx, r.line)
			case errors.Is(r.err, wire.ErrLineTooLong):
				c.logf("dropped a line: %v", r.err)
				c.send(wire.NewError(wire.Null, wire.Errorf(wire.CodeParseError, "Parse error: %v", r.err)))
			case errors.Is(r.err, io.EOF):
				if n := c.inFlight(); n == 1 {
					c.logf("input closed; answering the 1 request still in flight, then exiting")
				} else {
					c.logf("input closed; answering the %d requests still in flight, then exiting", n)
				}
				break loop
			default:
				c.logf("reading input failed: %v", r.err)
				stopErr = r.err
				break loop
			}
			select {
			case next <- struct{}{}:
			case <-ctx.Done():
			}
		}
	}
	if stopErr != nil {
		cancel()
	}
	c.wg.Wait()
	if stopErr != nil {
		return stopErr
	}
	return c.writeErr()
}

type readResult struct {
	line []byte
	err  error
}

func cmp(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// conn is the state of one Serve call.
type conn struct {
	srv   *Server
	out   *wire.LineWriter
	slots chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	werr  error
	logMu sync.Mutex
}

func (c *conn) inFlight() int { return len(c.slots) }

func (c *conn) logf(format string, args ...any) {
	if c.srv.Log == nil {
		return
	}
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.srv.Log, "log: %s\n", msg)
}

func (c *conn) send(r *wire.Response) {
	if err := c.out.WriteResponse(r); err != nil {
		c.logf("cannot write the answer for id %s: %v", r.ID, err)
		c.mu.Lock()
		if c.werr == nil {
			c.werr = err
		}
		c.mu.Unlock()
	}
}

func (c *conn) writeErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.werr
}

func (c *conn) handleLine(ctx context.Context, line []byte) {
	msg, problem := wire.ParseRequest(line)
	if problem != nil {
		c.logf("bad line %s: %s (answered %d, id %s)", wire.QuoteShort(line), problem.Err.Message, problem.Err.Code, problem.ID)
		c.send(wire.NewError(problem.ID, problem.Err))
		return
	}
	if msg.Kind == wire.KindNotification {
		c.logf("got notification %s (notifications get no answer)", msg.Method)
		return
	}
	c.logf("got %s id=%s", msg.Method, msg.ID)
	if in, ok := c.srv.Handler.(Inliner); ok && in.Inline(msg) {
		c.send(c.answer(ctx, msg))
		return
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		c.send(wire.NewError(msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: the server is shutting down")))
		return
	}
	c.wg.Add(1)
	go func() {
		defer func() { <-c.slots; c.wg.Done() }()
		c.send(c.answer(ctx, msg))
	}()
}

// answer runs the handler and turns what it returns, or a panic, into a
// response.
func (c *conn) answer(ctx context.Context, msg *wire.Message) (resp *wire.Response) {
	defer func() {
		if p := recover(); p != nil {
			c.logf("handler panicked on %s id=%s: %v", msg.Method, msg.ID, p)
			resp = wire.NewError(msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: the handler failed"))
		}
	}()
	result, err := c.srv.Handler.Handle(ctx, msg)
	if err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return wire.NewError(msg.ID, we)
		}
		return wire.NewError(msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: %v", err))
	}
	r, err := wire.NewResult(msg.ID, result)
	if err != nil {
		return wire.NewError(msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: %v", err))
	}
	return r
}
