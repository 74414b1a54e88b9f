package rig

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcplab/mcplab/lab/httpbound"
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

// bodyBound is the rig's bound on request bodies, for a read timeout.
func bodyBound(readTimeout time.Duration) httpbound.Body {
	return httpbound.Body{MaxBody: MaxBody, MaxHeld: MaxHeldBodies, Step: freeBody, Timeout: readTimeout}
}

// httpServer returns the http.Server that plays h, within the rig's
// bounds on headers and idle connections.
func (r *Rig) httpServer(h http.Handler) *http.Server {
	return httpbound.Server{MaxHeaderBytes: MaxHeaderBytes, ReadHeaderTimeout: r.readTimeout, IdleTimeout: 6 * r.readTimeout,
		ErrorLog: discardLog()}.HTTPServer(h)
}

// bodyError is a request body the rig would not or could not read: the
// status it answers and what it says.
type bodyError struct {
	status int
	why    string
}

func (e *bodyError) Error() string { return e.why }

// readBody reads a request's body within the rig's bounds (see
// httpbound.Bodies.Read): at most MaxBody bytes, all within the read
// timeout, the part past freeBody only with a share of the bodies held at
// once, waited for until the read timeout or the rig's end. It returns the
// body and the function that gives its share back, to call once the
// exchange is over.
func (r *Rig) readBody(w http.ResponseWriter, req *http.Request) ([]byte, func(), error) {
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	stop := context.AfterFunc(r.ctx, cancel)
	defer stop()
	body, release, err := r.bodies.Read(ctx, w, req)
	if err != nil {
		return nil, nil, r.bodyFailed(err)
	}
	return body, release, nil
}

// bodyFailed says in the rig's words why a body could not be read.
func (r *Rig) bodyFailed(e *httpbound.BodyError) error {
	timeout := e.Bound.Timeout.Round(time.Millisecond)
	switch e.Problem {
	case httpbound.TooLong:
		if e.Length > MaxBody {
			return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the request's body is %d bytes (Content-Length); the servers the lab plays take at most %d (an MCP request is small)", e.Length, MaxBody)}
		}
		return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the request's body goes on past %d bytes; the servers the lab plays take at most that (an MCP request is small)", MaxBody)}
	case httpbound.Busy:
		return &bodyError{http.StatusServiceUnavailable, fmt.Sprintf("the rig holds %d MiB of long request bodies at once and had no room for this one within %s; send requests of at most %d KiB, or fewer at once", MaxHeldBodies>>20, timeout, freeBody>>10)}
	case httpbound.Slow:
		return &bodyError{http.StatusRequestTimeout, fmt.Sprintf("the request's body did not arrive within %s (%d bytes came); send the whole body at once, as its Content-Length says", timeout, e.Read)}
	case httpbound.Unbounded:
		return &bodyError{http.StatusBadRequest, "the rig could not bound the time the request's body takes: " + e.Err.Error()}
	}
	return &bodyError{http.StatusBadRequest, fmt.Sprintf("the request's body could not be read after %d bytes: %v", e.Read, e.Err)}
}
