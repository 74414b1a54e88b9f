package httpbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// The default bounds on request bodies, as Body takes them. An MCP
// request is a few hundred bytes; a tool call with long arguments a few
// kilobytes.
const (
	// DefaultMaxBody is the longest body read for one request: 1 MiB.
	DefaultMaxBody = 1 << 20
	// DefaultMaxHeld bounds the bytes of all bodies held at once beyond
	// each body's first Step: 8 MiB.
	DefaultMaxHeld = 8 << 20
	// DefaultStep is how a body's buffer grows once past its first step,
	// and the room each body may use without taking any from the shared
	// pool: 64 KiB.
	DefaultStep = 64 << 10
	// DefaultBodyTimeout is how long a body may take to arrive in full,
	// counted from the start of the read, a wait for room included: 10 s.
	DefaultBodyTimeout = 10 * time.Second
)

// Body bounds the request bodies a server reads, as the lab's side
// playing the server. A zero field takes its default.
type Body struct {
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
	// Timeout is the time a whole body may take (DefaultBodyTimeout).
	Timeout time.Duration
}

func (l Body) withDefaults() Body {
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultMaxBody
	}
	if l.MaxHeld <= 0 {
		l.MaxHeld = DefaultMaxHeld
	}
	if l.Step <= 0 {
		l.Step = DefaultStep
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultBodyTimeout
	}
	// The pool holds at least one body of the longest length, or such a
	// body would wait for room that can never come.
	l.MaxHeld = max(l.MaxHeld, l.MaxBody-l.Step)
	return l
}

// Gauge is what the bodies being read hold at one moment.
type Gauge struct {
	// Bodies is the number of bodies being read or held.
	Bodies int
	// Waiting is how many of them wait for room in the pool.
	Waiting int
	// Held is the bytes they hold from the pool.
	Held int64
	// Buffered is the bytes of their buffers, read or not yet.
	Buffered int64
}

// Bodies reads request bodies within a Body bound, sharing one pool of
// room among all the requests of the servers that use it. Use NewBodies;
// one Bodies may serve several handlers at once.
type Bodies struct {
	bound Body
	// onChange, when set, is called with the gauge after each change,
	// with mu held: it must return at once and not call back.
	onChange func(Gauge)

	mu      sync.Mutex
	gauge   Gauge
	changed chan struct{} // closed and replaced at each change
}

// NewBodies returns a Bodies reading within b. onChange, if not nil, is
// called with the gauge after every change, with a lock held: it must
// return at once (tests use it to see the bodies arrive and leave).
func NewBodies(b Body, onChange func(Gauge)) *Bodies {
	return &Bodies{bound: b.withDefaults(), onChange: onChange, changed: make(chan struct{})}
}

// Bound returns the bounds b reads within, defaults filled in.
func (b *Bodies) Bound() Body { return b.bound }

// Gauge returns what the bodies being read hold now.
func (b *Bodies) Gauge() Gauge {
	g, _ := b.Watch()
	return g
}

// Watch returns what the bodies being read hold now, and a channel closed
// at the next change.
func (b *Bodies) Watch() (Gauge, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gauge, b.changed
}

// update changes the gauge under the lock and reports it.
func (b *Bodies) update(f func(g *Gauge)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.gauge)
	b.changedLocked()
}

// changedLocked reports a change; b.mu is held.
func (b *Bodies) changedLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
	if b.onChange != nil {
		b.onChange(b.gauge)
	}
}

var errNoRoom = errors.New("no room came free before the body's deadline")

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
		if b.bound.MaxHeld-b.gauge.Held >= n {
			b.gauge.Held += n
			if waiting {
				b.gauge.Waiting--
				waiting = false
			}
			b.changedLocked()
			b.mu.Unlock()
			return nil
		}
		if !waiting {
			waiting = true
			b.gauge.Waiting++
			b.changedLocked()
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
	b.update(func(g *Gauge) { g.Held -= n })
}

// Problem is why a body could not be read.
type Problem int

// The problems a body can have.
const (
	// TooLong: its Content-Length is past MaxBody (then Length says it,
	// and nothing was read), or it went on past MaxBody.
	TooLong Problem = iota + 1
	// Busy: it needed room in the pool and none came free in time (or
	// the read's context ended while it waited).
	Busy
	// Slow: it did not arrive in full within Timeout.
	Slow
	// Cut: the connection ended before the body did.
	Cut
	// Unreadable: reading it failed otherwise (a malformed chunk).
	Unreadable
	// Unbounded: the connection's read deadline could not be set.
	Unbounded
)

// BodyError says why a body could not be read, in numbers: the side that
// plays the server says it in its own words.
type BodyError struct {
	// Problem is what went wrong.
	Problem Problem
	// Bound is the bounds the body was read within.
	Bound Body
	// Read is the bytes of the body that had come.
	Read int64
	// Length is the body's Content-Length, or -1 when it is chunked.
	Length int64
	// Err is the error that stopped the read, if there was one.
	Err error
}

// Error describes the failure for a log.
func (e *BodyError) Error() string {
	var what string
	switch e.Problem {
	case TooLong:
		what = fmt.Sprintf("the body is longer than %d bytes", e.Bound.MaxBody)
	case Busy:
		what = fmt.Sprintf("no room for the body among the %d bytes held at once", e.Bound.MaxHeld)
	case Slow:
		what = fmt.Sprintf("the body did not arrive within %v", e.Bound.Timeout)
	case Cut:
		what = "the body was cut off"
	case Unreadable:
		what = "the body could not be read"
	case Unbounded:
		what = "the body's read deadline could not be set"
	}
	what = fmt.Sprintf("%s (%d bytes came, Content-Length %d)", what, e.Read, e.Length)
	if e.Err != nil {
		what += ": " + e.Err.Error()
	}
	return what
}

// Unwrap returns the error that stopped the read.
func (e *BodyError) Unwrap() error { return e.Err }

// Read reads r's body within b's bounds. A Content-Length past MaxBody
// is refused before anything is read. The whole body must arrive within
// Timeout of the call (set as the connection's read deadline through w,
// and cleared before Read returns). Its buffer grows only as bytes
// arrive, in Steps past the first; a body longer than one Step first
// takes room from the pool for all of it (its Content-Length, or MaxBody
// when it is chunked), waiting for room until its deadline or until ctx
// ends. The room is given back when Read returns an error, or when the
// caller calls release, which it must once it no longer needs the body.
func (b *Bodies) Read(ctx context.Context, w http.ResponseWriter, r *http.Request) (body []byte, release func(), err *BodyError) {
	l := b.bound
	if r.ContentLength > l.MaxBody {
		return nil, nil, &BodyError{Problem: TooLong, Bound: l, Length: r.ContentLength}
	}
	deadline := time.Now().Add(l.Timeout)
	rc := http.NewResponseController(w)
	// Without a deadline (a ResponseWriter that does not reach the
	// connection), the bounds on size and room still hold.
	if err := rc.SetReadDeadline(deadline); err == nil {
		// Cleared once the body is in, so the server still sees the
		// client close the connection while the answer is made.
		defer rc.SetReadDeadline(time.Time{})
	} else if !errors.Is(err, http.ErrNotSupported) {
		return nil, nil, &BodyError{Problem: Unbounded, Bound: l, Length: r.ContentLength, Err: err}
	}
	b.update(func(g *Gauge) { g.Bodies++ })
	var held int64
	var cur []byte
	done := func() {
		b.give(held)
		held = 0
		b.update(func(g *Gauge) { g.Bodies--; g.Buffered -= int64(cap(cur)) })
	}
	buf, rerr := b.read(ctx, r, deadline, &held, &cur)
	if rerr != nil {
		done()
		return nil, nil, rerr
	}
	return buf, sync.OnceFunc(done), nil
}

// read fills a buffer from r.Body, taking room in Steps past the first.
// *cur is the buffer as it grows, for the caller to count it off at the
// end, whatever the outcome.
func (b *Bodies) read(ctx context.Context, r *http.Request, deadline time.Time, held *int64, cur *[]byte) ([]byte, *BodyError) {
	l := b.bound
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
				if err := b.take(ctx, need, deadline); err != nil {
					return nil, &BodyError{Problem: Busy, Bound: l, Read: int64(len(buf)), Length: r.ContentLength, Err: err}
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
			return nil, b.readError(err, int64(len(buf)), r.ContentLength)
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
			return nil, &BodyError{Problem: TooLong, Bound: b.bound, Read: int64(len(buf) + n), Length: r.ContentLength}
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return nil, b.readError(err, int64(len(buf)), r.ContentLength)
		}
	}
}

// readError sorts out a body that stopped before its end.
func (b *Bodies) readError(err error, got, length int64) *BodyError {
	p := Unreadable
	var ne net.Error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		p = Slow
	case errors.Is(err, io.ErrUnexpectedEOF):
		p = Cut
	}
	return &BodyError{Problem: p, Bound: b.bound, Read: got, Length: length, Err: err}
}
