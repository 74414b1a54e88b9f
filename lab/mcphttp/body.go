package mcphttp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/httpbound"
	"github.com/mcplab/mcplab/lab/wire"
)

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

// readBody reads r's body within b's bounds (see httpbound.Bodies.Read).
// A body it cannot read is abandoned (see Abandon) and explained as the
// error to answer. The caller must call release once it no longer needs
// the body.
func readBody(b *httpbound.Bodies, w http.ResponseWriter, r *http.Request) (body []byte, release func(), err *BodyError) {
	body, release, berr := b.Read(r.Context(), w, r)
	if berr != nil {
		Abandon(w, r)
		return nil, nil, bodyError(berr)
	}
	return body, release, nil
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

// bodyError says in this server's words why a body could not be read.
func bodyError(e *httpbound.BodyError) *BodyError {
	l := e.Bound
	switch e.Problem {
	case httpbound.TooLong:
		if e.Length > l.MaxBody {
			return &BodyError{Status: http.StatusBadRequest, Err: wire.Errorf(wire.CodeInvalidRequest,
				"Invalid Request: the Content-Length of %d bytes is more than the %d bytes this server reads for one message; send one JSON-RPC request per POST (a request is a few kilobytes at most)",
				e.Length, l.MaxBody)}
		}
		return &BodyError{Status: http.StatusBadRequest, Err: wire.Errorf(wire.CodeInvalidRequest,
			"Invalid Request: the body is longer than the %d bytes this server reads for one message; send one JSON-RPC request per POST (a request is a few kilobytes at most)", l.MaxBody)}
	case httpbound.Busy:
		return &BodyError{Status: http.StatusServiceUnavailable, Err: wire.Errorf(wire.CodeInternalError,
			"Server busy: other requests' bodies fill the %d bytes this server holds at once, and no room came free within %v; nothing of this request was done, send it again",
			l.MaxHeld, l.Timeout), Cause: e.Err}
	}
	of := ""
	if e.Length >= 0 {
		of = fmt.Sprintf(" of the %d its Content-Length announced", e.Length)
	}
	var msg string
	switch e.Problem {
	case httpbound.Slow:
		msg = fmt.Sprintf("Parse error: the body did not arrive in full within %v (%d bytes%s came); send the whole body right after the headers", l.Timeout, e.Read, of)
	case httpbound.Cut:
		msg = fmt.Sprintf("Parse error: the body was cut off after %d bytes%s; send the whole body before closing the connection", e.Read, of)
	default:
		msg = fmt.Sprintf("Parse error: the body could not be read after %d bytes: %v; a chunked body is chunks each led by its size in hexadecimal, ended by a chunk of size 0", e.Read, e.Err)
	}
	return &BodyError{Status: http.StatusBadRequest, Err: wire.Errorf(wire.CodeParseError, "%s", msg), Cause: e.Err}
}
