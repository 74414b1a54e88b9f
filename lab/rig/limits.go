package rig

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

	"github.com/mcplab/mcplab/lab/connlimit"
)

// The bounds a rig holds a client to, so that a client that floods its
// servers costs the grader bounded memory and its own later requests are
// still served.
const (
	// MaxHTTPConns is how many connections one HTTP server takes at once
	// (its port and its socket together); more wait to be accepted.
	MaxHTTPConns = 256
	// MaxStdioConns is how many starts of one stdio server run at once;
	// more wait to be accepted.
	MaxStdioConns = 16
	// MaxHeaderBytes bounds an HTTP request's headers.
	MaxHeaderBytes = 16 << 10
	// MaxBody bounds an HTTP request's body: an MCP request is small. A
	// longer one is answered 413.
	MaxBody = 1 << 20
	// freeBody is how much of each body is read without a share of the
	// bodies held at once: every ordinary request fits in it.
	freeBody = 16 << 10
	// MaxHeldBodies bounds, in bytes, the bodies beyond their first 16 KiB
	// that a rig holds at once. A body that cannot get its share within
	// the read timeout is answered 503.
	MaxHeldBodies = 8 << 20
	// DefaultReadTimeout is how long a request's headers, and then its
	// body, may take to arrive before the connection is answered 408 (a
	// body) or dropped (headers). It scales like the grader's deadlines.
	DefaultReadTimeout = 10 * time.Second
	// The record keeps at most this much text (lines, bodies, headers)
	// and this many events, per server and in all. Past a cap, events
	// are counted, not kept.
	MaxKeptPerServer   = 4 << 20
	MaxEventsPerServer = 10000
	MaxKept            = 16 << 20
	MaxEvents          = 40000
	// DefaultMaxLine bounds one recorded line or body (Options.MaxLine).
	DefaultMaxLine = MaxBody
)

// limitListener accepts at most cap(slots) connections at once; Accept
// waits for one to end, or for done.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  <-chan struct{}
}

func (l *limitListener) Accept() (net.Conn, error) {
	c, free, err := connlimit.Accept(l.Listener, l.slots, l.done)
	if err != nil {
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(free)}, nil
}

// limitConn gives its slot back once closed.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// bytePool hands out shares of a number of bytes; a share is waited for
// until a context ends.
type bytePool struct {
	mu      sync.Mutex
	free    int64
	waiting int // acquires waiting for a share
	changed chan struct{}
}

func newBytePool(n int64) *bytePool { return &bytePool{free: n, changed: make(chan struct{})} }

func (p *bytePool) acquire(ctx context.Context, n int64) error {
	for {
		p.mu.Lock()
		if p.free >= n {
			p.free -= n
			p.signal()
			p.mu.Unlock()
			return nil
		}
		p.waiting++
		p.signal()
		ch := p.changed
		p.mu.Unlock()
		var err error
		select {
		case <-ch:
		case <-ctx.Done():
			err = ctx.Err()
		}
		p.mu.Lock()
		p.waiting--
		p.signal()
		p.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// signal wakes whoever waits for a change; p.mu is held.
func (p *bytePool) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// state is the bytes free, the acquires waiting, and a channel closed at
// the next change.
func (p *bytePool) state() (int64, int, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.free, p.waiting, p.changed
}

func (p *bytePool) release(n int64) {
	if n == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free += n
	p.signal()
}

// bodyError is a request body the rig would not or could not read: the
// status it answers and what it says.
type bodyError struct {
	status int
	why    string
}

func (e *bodyError) Error() string { return e.why }

// readBody reads a request's body within the rig's bounds: at most
// MaxBody bytes, all within the read timeout, the part past freeBody only
// with a share of the bodies held at once. It returns the body and the
// share taken, to give back once the exchange is over.
func (r *Rig) readBody(w http.ResponseWriter, req *http.Request) ([]byte, int64, error) {
	deadline := time.Now().Add(r.readTimeout)
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(deadline); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return nil, 0, &bodyError{http.StatusBadRequest, "the rig could not bound the time the request's body takes: " + err.Error()}
	}
	defer rc.SetReadDeadline(time.Time{})
	if req.ContentLength > MaxBody {
		return nil, 0, &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the request's body is %d bytes (Content-Length); the servers the lab plays take at most %d (an MCP request is small)", req.ContentLength, MaxBody)}
	}
	first := int64(freeBody)
	if req.ContentLength >= 0 && req.ContentLength < first {
		first = req.ContentLength
	}
	body := make([]byte, 0, first)
	body, err := readInto(body, req.Body, freeBody+1)
	if err != nil {
		return nil, 0, r.bodyFailed(err, len(body))
	}
	if len(body) <= freeBody {
		return body, 0, nil // the whole body: readInto stopped at its end
	}
	// A long body: take a share of the bodies held at once for the rest.
	share := int64(MaxBody - freeBody)
	if req.ContentLength >= 0 {
		share = req.ContentLength - freeBody
	}
	ctx, cancel := context.WithDeadline(req.Context(), deadline)
	defer cancel()
	stop := context.AfterFunc(r.ctx, cancel)
	defer stop()
	if err := r.bodies.acquire(ctx, share); err != nil {
		return nil, 0, &bodyError{http.StatusServiceUnavailable, fmt.Sprintf("the rig holds %d MiB of long request bodies at once and had no room for this one within %s; send requests of at most %d KiB, or fewer at once", MaxHeldBodies>>20, r.readTimeout.Round(time.Millisecond), freeBody>>10)}
	}
	rest := make([]byte, len(body), len(body)+int(share)+1)
	copy(rest, body)
	body, err = readInto(rest, req.Body, MaxBody+1)
	if err == nil && len(body) > MaxBody {
		err = errTooLong
	}
	if err != nil {
		r.bodies.release(share)
		return nil, 0, r.bodyFailed(err, len(body))
	}
	return body, share, nil
}

var errTooLong = errors.New("the body goes on past the bound")

// bodyFailed says why a body could not be read, after n bytes of it.
func (r *Rig) bodyFailed(err error, n int) error {
	var ne net.Error
	switch {
	case errors.Is(err, errTooLong):
		return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the request's body goes on past %d bytes; the servers the lab plays take at most that (an MCP request is small)", MaxBody)}
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return &bodyError{http.StatusRequestTimeout, fmt.Sprintf("the request's body did not arrive within %s (%d bytes came); send the whole body at once, as its Content-Length says", r.readTimeout.Round(time.Millisecond), n)}
	}
	return &bodyError{http.StatusBadRequest, fmt.Sprintf("the request's body could not be read after %d bytes: %v", n, err)}
}

// readInto appends what r has to b, up to max bytes in all, and stops
// there; reaching the end of r is no error.
func readInto(b []byte, r io.Reader, max int) ([]byte, error) {
	for len(b) < max {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		end := min(cap(b), max)
		n, err := r.Read(b[len(b):end])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}
