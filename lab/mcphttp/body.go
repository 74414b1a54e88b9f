package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/wire"
)

// The default bounds on request bodies. An MCP request is a few hundred
// bytes; a tool call with long arguments a few kilobytes.
const (
	// DefaultMaxBody is the longest body read for one message: 1 MiB.
	DefaultMaxBody = 1 << 20
	// DefaultMaxHeld bounds the bytes of all bodies held at once beyond
	// each body's first DefaultStep: 8 MiB.
	DefaultMaxHeld = 8 << 20
	// DefaultStep is how a body's buffer grows once past its first step,
	// and the room each body may use without taking any from the shared
	// pool: 64 KiB.
	DefaultStep = 64 << 10
	// DefaultBodyTimeout is how long a body may take to arrive in full,
	// counted from the end of its headers, a wait for room included: 10 s.
	DefaultBodyTimeout = 10 * time.Second
)

// Limits bound the request bodies a handler reads. A zero field takes its
// default.
type Limits struct {
	// MaxBody is the longest body accepted, in bytes (DefaultMaxBody).
	MaxBody int64
	// MaxHeld bounds the bytes held at once by all the bodies being read,
	// beyond each body's first Step (DefaultMaxHeld; at least MaxBody
	// less Step). A body that needs more waits for room until its
	// deadline.
	MaxHeld int64
	// Step is the size a buffer grows by past its first Step bytes, and
	// what each body may hold without room from the pool (DefaultStep).
	Step int64
	// BodyTimeout is the time a whole body may take (DefaultBodyTimeout).
	BodyTimeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultMaxBody
	}
	if l.MaxHeld <= 0 {
		l.MaxHeld = DefaultMaxHeld
	}
	if l.Step <= 0 {
		l.Step = DefaultStep
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	// The pool holds at least one body of the longest length, or such a
	// body would wait for room that can never come.
	l.MaxHeld = max(l.MaxHeld, l.MaxBody-l.Step)
	return l
}

// Gauge is what the bodies being read hold at one moment.
type Gauge struct {
	// Bodies is the number of bodies being read.
	Bodies int
	// Waiting is how many of them wait for room in the pool.
	Waiting int
	// Held is the bytes they hold from the pool.
	Held int64
	// Buffered is the bytes of their buffers, read or not yet.
	Buffered int64
}

// Bodies reads request bodies within Limits, sharing one pool of room
// among all the requests of the handlers that use it. Use NewBodies; one
// Bodies may serve several handlers.
type Bodies struct {
	limits Limits
	// onChange, when set, is called with the gauge after each change,
	// with mu held: it must return at once and not call back.
	onChange func(Gauge)

	mu      sync.Mutex
	gauge   Gauge
	changed chan struct{} // closed and replaced when room is given back
}

// NewBodies returns a Bodies reading within l. onChange, if not nil, is
// called with the gauge after every change, with a lock held: it must
// return at once (tests use it to see the bodies arrive and leave).
func NewBodies(l Limits, onChange func(Gauge)) *Bodies {
	return &Bodies{limits: l.withDefaults(), onChange: onChange, changed: make(chan struct{})}
}

// Limits returns the bounds b reads within, defaults filled in.
func (b *Bodies) Limits() Limits { return b.limits }

// Gauge returns what the bodies being read hold now.
func (b *Bodies) Gauge() Gauge {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gauge
}

// update changes the gauge under the lock and reports it.
func (b *Bodies) update(f func(g *Gauge)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.gauge)
	if b.onChange != nil {
		b.onChange(b.gauge)
	}
}

var errNoRoom = errors.New("no room")

// take waits until n bytes of room are free and takes them, or gives up
// at the deadline (errNoRoom) or when ctx ends.
func (b *Bodies) take(ctx context.Context, n int64, deadline time.Time) error {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	waiting := false
	defer func() {
		if waiting {
			b.update(func(g *Gauge) { g.Waiting-- })
		}
	}()
	for {
		b.mu.Lock()
		if b.limits.MaxHeld-b.gauge.Held >= n {
			b.gauge.Held += n
			if waiting {
				b.gauge.Waiting--
				waiting = false
			}
			if b.onChange != nil {
				b.onChange(b.gauge)
			}
			b.mu.Unlock()
			return nil
		}
		if !waiting {
			waiting = true
			b.gauge.Waiting++
			if b.onChange != nil {
				b.onChange(b.gauge)
			}
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return errNoRoom
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// give returns n bytes of room to the pool.
func (b *Bodies) give(n int64) {
	if n == 0 {
		return
	}
	b.update(func(g *Gauge) {
		g.Held -= n
		close(b.changed) // wakes every body waiting for room
		b.changed = make(chan struct{})
	})
}

// BodyError says why a body could not be read, and how to answer it.
type BodyError struct {
	// Status is the HTTP status to answer with.
	Status int
	// Err is the JSON-RPC error to send, with id null.
	Err *wire.Error
	// Cause is the error reading the body, if there was one.
	Cause error
}

// Error describes the failure for a log.
func (e *BodyError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s (%v)", e.Err.Message, e.Cause)
	}
	return e.Err.Message
}

// Unwrap returns the error reading the body.
func (e *BodyError) Unwrap() error { return e.Cause }

// Write answers the request with the error: the status, Content-Type:
// application/json, Connection: close (the rest of the body is not read),
// and {"jsonrpc":"2.0","id":null,"error":{...}}.
func (e *BodyError) Write(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	if e.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, e.Status, json.RawMessage(wire.Null), e.Err)
}

// Read reads r's body within b's limits. The whole body must arrive
// within BodyTimeout of the call (set as the connection's read deadline
// through w, then cleared). Its buffer grows only as bytes arrive, in
// Steps past the first; a body longer than one Step first takes room
// from the pool for all of it (its Content-Length, or MaxBody when it is
// chunked), waiting for room until its deadline. The room is given back
// when Read returns an error, or when the caller calls release, which it
// must once it no longer needs the body.
func (b *Bodies) Read(w http.ResponseWriter, r *http.Request) (body []byte, release func(), err *BodyError) {
	l := b.limits
	if r.ContentLength > l.MaxBody {
		Abandon(w, r)
		return nil, nil, &BodyError{Status: http.StatusBadRequest, Err: wire.Errorf(wire.CodeInvalidRequest,
			"Invalid Request: the Content-Length of %d bytes is more than the %d bytes this server reads for one message; send one JSON-RPC request per POST (a request is a few kilobytes at most)",
			r.ContentLength, l.MaxBody)}
	}
	deadline := time.Now().Add(l.BodyTimeout)
	rc := http.NewResponseController(w)
	// Without a deadline (a ResponseWriter that does not reach the
	// connection), the bounds on size and room still hold.
	timed := rc.SetReadDeadline(deadline) == nil
	b.update(func(g *Gauge) { g.Bodies++ })
	var held int64
	var cur []byte
	done := func() {
		b.give(held)
		held = 0
		b.update(func(g *Gauge) { g.Bodies--; g.Buffered -= int64(cap(cur)) })
	}
	buf, rerr := b.read(r, deadline, &held, &cur)
	if rerr != nil {
		done()
		Abandon(w, r)
		return nil, nil, rerr
	}
	if timed {
		// Cleared once the body is in, so the server still sees the
		// client close the connection while the answer is made.
		rc.SetReadDeadline(time.Time{})
	}
	var once sync.Once
	return buf, func() { once.Do(done) }, nil
}

// Abandon gives up on the rest of r's body before a refusal is written.
// The answer says Connection: close; whatever net/http would read of the
// rest to reuse the connection fails at once, so a stalled client holds
// nothing once it has its answer; and the server half-closes and waits a
// moment before it closes, as after http.MaxBytesReader's limit, so a
// client still sending reads the answer rather than a reset. A request
// with no body is left alone.
func Abandon(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 {
		return
	}
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
	r.Body.Close()
	// A limit of 0 passed by a byte that is already here: this marks the
	// response as past its body limit, and nothing of r is read.
	http.MaxBytesReader(w, io.NopCloser(strings.NewReader("x")), 0).Read(make([]byte, 1))
}

// read fills a buffer from r.Body, taking room in Steps past the first.
// *cur is the buffer as it grows, for the caller to count it off at the
// end, whatever the outcome.
func (b *Bodies) read(r *http.Request, deadline time.Time, held *int64, cur *[]byte) ([]byte, *BodyError) {
	l := b.limits
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) == r.ContentLength || int64(len(buf)) == l.MaxBody {
				// Only the end may follow, not one more byte.
				return b.finish(r, buf)
			}
			next := min(max(2*int64(cap(buf)), 512), l.Step)
			if int64(cap(buf)) >= l.Step {
				next = int64(cap(buf)) + l.Step
			}
			next = min(next, l.MaxBody)
			if r.ContentLength >= 0 {
				next = min(next, r.ContentLength)
			}
			if next > l.Step && *held == 0 {
				// Room for the rest of the body at once, so a body waits
				// holding nothing from the pool: room cut into pieces that
				// are each too small can never leave every body waiting.
				need := l.MaxBody - l.Step
				if r.ContentLength >= 0 {
					need = r.ContentLength - l.Step
				}
				if err := b.take(r.Context(), need, deadline); err != nil {
					return nil, &BodyError{Status: http.StatusServiceUnavailable, Err: wire.Errorf(wire.CodeInternalError,
						"Server busy: other requests' bodies fill the %d bytes this server holds at once, and no room came free within %v; nothing of this request was done, send it again",
						l.MaxHeld, l.BodyTimeout), Cause: err}
				}
				*held += need
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			b.update(func(g *Gauge) { g.Buffered += next - int64(cap(buf)) })
			buf = grown
			*cur = buf
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, readError(err, int64(len(buf)), r.ContentLength, l.BodyTimeout)
		}
	}
}

// finish reads the end of a body whose buffer is full: its announced
// length or the longest one accepted.
func (b *Bodies) finish(r *http.Request, buf []byte) ([]byte, *BodyError) {
	var one [1]byte
	for {
		n, err := r.Body.Read(one[:])
		switch {
		case n > 0:
			return nil, &BodyError{Status: http.StatusBadRequest, Err: wire.Errorf(wire.CodeInvalidRequest,
				"Invalid Request: the body is longer than the %d bytes this server reads for one message; send one JSON-RPC request per POST (a request is a few kilobytes at most)", b.limits.MaxBody)}
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, readError(err, int64(len(buf)), r.ContentLength, b.limits.BodyTimeout)
		}
	}
}

// readError explains a body that stopped before its end.
func readError(err error, got, length int64, timeout time.Duration) *BodyError {
	of := ""
	if length >= 0 {
		of = fmt.Sprintf(" of the %d its Content-Length announced", length)
	}
	var msg string
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		msg = fmt.Sprintf("Parse error: the body did not arrive in full within %v (%d bytes%s came); send the whole body right after the headers", timeout, got, of)
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = fmt.Sprintf("Parse error: the body was cut off after %d bytes%s; send the whole body before closing the connection", got, of)
	default:
		msg = fmt.Sprintf("Parse error: the body could not be read after %d bytes: %v; a chunked body is chunks each led by its size in hexadecimal, ended by a chunk of size 0", got, err)
	}
	return &BodyError{Status: http.StatusBadRequest, Err: wire.Errorf(wire.CodeParseError, "%s", msg), Cause: err}
}
