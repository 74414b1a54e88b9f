package httpbound

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The default bounds on a server's answer, as Answer takes them.
const (
	// DefaultAnswerHeaderBytes bounds an answer's status line and headers:
	// 64 KiB.
	DefaultAnswerHeaderBytes = 64 << 10
	// DefaultAnswerBody bounds an answer's body that is not an event
	// stream: 1 MiB. An MCP answer is a few kilobytes.
	DefaultAnswerBody = 1 << 20
	// DefaultAnswerEvent bounds one event of an event stream, its lines
	// and the blank line that ends it: 1 MiB.
	DefaultAnswerEvent = 1 << 20
	// DefaultAnswerIdle is the longest wait for the headers, and then for
	// each next bytes of the body: 10 s.
	DefaultAnswerIdle = 10 * time.Second
	// DefaultAnswerTotal is how long one exchange may take, from sending
	// the request to the end of the answer's body: 60 s.
	DefaultAnswerTotal = 60 * time.Second
)

// Answer bounds what the lab reads of one HTTP answer when the lab is the
// client and a server (a student's) answers. A zero field takes its
// default. Use it through Do, with a client whose transport comes from
// Transport.
type Answer struct {
	// MaxHeaderBytes bounds the status line and headers
	// (DefaultAnswerHeaderBytes).
	MaxHeaderBytes int64
	// MaxBody bounds a body read whole, by Reading.Body
	// (DefaultAnswerBody).
	MaxBody int64
	// MaxEvent bounds one event of an event stream, read by
	// Reading.Event (DefaultAnswerEvent).
	MaxEvent int64
	// Idle is the longest wait for the headers after the request, and
	// then for any next bytes of the body (DefaultAnswerIdle).
	Idle time.Duration
	// Total is the time the whole exchange may take (DefaultAnswerTotal).
	Total time.Duration
}

func (a Answer) withDefaults() Answer {
	if a.MaxHeaderBytes <= 0 {
		a.MaxHeaderBytes = DefaultAnswerHeaderBytes
	}
	if a.MaxBody <= 0 {
		a.MaxBody = DefaultAnswerBody
	}
	if a.MaxEvent <= 0 {
		a.MaxEvent = DefaultAnswerEvent
	}
	if a.Idle <= 0 {
		a.Idle = DefaultAnswerIdle
	}
	if a.Total <= 0 {
		a.Total = DefaultAnswerTotal
	}
	return a
}

// Transport returns a copy of base (of http.DefaultTransport when base is
// nil) that reads at most a's MaxHeaderBytes of an answer's status line
// and headers. The other bounds are Do's.
func (a Answer) Transport(base *http.Transport) *http.Transport {
	if base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	t := base.Clone()
	t.MaxResponseHeaderBytes = a.withDefaults().MaxHeaderBytes
	return t
}

// Which names one of the bounds of an Answer.
type Which int

// The bounds an answer can break.
const (
	HeaderBytes Which = iota + 1 // the status line and headers are too long
	BodyBytes                    // the body goes on past MaxBody
	EventBytes                   // one event goes on past MaxEvent
	IdleTime                     // no bytes came for Idle
	TotalTime                    // the exchange took longer than Total
)

// String names the bound in a few words.
func (w Which) String() string {
	switch w {
	case HeaderBytes:
		return "header size"
	case BodyBytes:
		return "body size"
	case EventBytes:
		return "event size"
	case IdleTime:
		return "idle time"
	case TotalTime:
		return "total time"
	}
	return fmt.Sprintf("Which(%d)", int(w))
}

// AnswerError says which bound of an Answer a server's answer broke.
type AnswerError struct {
	// Which is the bound that broke.
	Which Which
	// Bytes is the bound in bytes (header, body and event sizes).
	Bytes int64
	// Wait is the bound in time (idle and total time).
	Wait time.Duration
	// InHeaders is true when the headers had not all come.
	InHeaders bool
	// Read is the bytes of the body (or, for EventBytes, of the event)
	// that had come when reading stopped.
	Read int64
	// Length is the Content-Length the answer announced, or -1.
	Length int64
}

// Error says which bound broke and what had come.
func (e *AnswerError) Error() string {
	switch e.Which {
	case HeaderBytes:
		return fmt.Sprintf("the answer's status line and headers are longer than the %d bytes the lab reads of them", e.Bytes)
	case BodyBytes:
		if e.Length > e.Bytes {
			return fmt.Sprintf("the answer's Content-Length of %d bytes is more than the %d bytes the lab reads of one answer", e.Length, e.Bytes)
		}
		return fmt.Sprintf("the answer's body goes on past the %d bytes the lab reads of one answer", e.Bytes)
	case EventBytes:
		return fmt.Sprintf("an event of the answer's event stream goes on past the %d bytes the lab reads of one event, with no blank line to end it", e.Bytes)
	case IdleTime:
		if e.InHeaders {
			return fmt.Sprintf("the answer's headers did not come within %v of the request", e.Wait)
		}
		return fmt.Sprintf("no byte of the answer came for %v (%d bytes of its body had come)", e.Wait, e.Read)
	case TotalTime:
		if e.InHeaders {
			return fmt.Sprintf("the answer's headers did not come within the %v an exchange may take", e.Wait)
		}
		return fmt.Sprintf("the answer did not end within the %v an exchange may take (%d bytes of its body had come)", e.Wait, e.Read)
	}
	return "the answer broke a bound: " + e.Which.String()
}

var (
	errIdle  = errors.New("idle too long")
	errTotal = errors.New("the exchange took too long")
)

// Reading is one answer being read within an Answer bound. Read its body
// through Body or Event, not through Response.Body, and Close it once
// done.
type Reading struct {
	// Response is the answer, its status and headers.
	Response *http.Response

	bound  Answer
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   context.CancelFunc
	idle   *time.Timer
	body   *bufio.Reader
	read   int64 // body bytes come so far
}

// Do sends req through c with ctx and returns the answer once its headers
// are in, to be read within a. The headers must come within Idle; each
// next bytes of the body within Idle of the bytes before; all of it
// within Total of the call. An error from a bound is an *AnswerError;
// others (the server cannot be reached) are c's, wrapped.
func (a Answer) Do(ctx context.Context, c *http.Client, req *http.Request) (*Reading, error) {
	a = a.withDefaults()
	tctx, stop := context.WithTimeoutCause(ctx, a.Total, errTotal)
	ictx, cancel := context.WithCancelCause(tctx)
	r := &Reading{bound: a, ctx: ictx, cancel: cancel, stop: stop}
	r.idle = time.AfterFunc(a.Idle, func() { cancel(errIdle) })
	resp, err := c.Do(req.WithContext(ictx))
	if err != nil {
		r.Close()
		if strings.Contains(err.Error(), "response headers exceeded") {
			return nil, &AnswerError{Which: HeaderBytes, Bytes: a.MaxHeaderBytes, InHeaders: true, Length: -1}
		}
		if be := r.bound.broken(ictx, true, 0, -1); be != nil {
			return nil, be
		}
		return nil, fmt.Errorf("sending %s %s: %w", req.Method, req.URL.Redacted(), err)
	}
	r.idle.Reset(a.Idle)
	r.Response = resp
	r.body = bufio.NewReader(&idleReader{r: r, body: resp.Body})
	return r, nil
}

// broken returns the AnswerError for a read that failed because ctx
// ended at a bound, or nil.
func (a Answer) broken(ctx context.Context, inHeaders bool, read, length int64) *AnswerError {
	switch context.Cause(ctx) {
	case errIdle:
		return &AnswerError{Which: IdleTime, Wait: a.Idle, InHeaders: inHeaders, Read: read, Length: length}
	case errTotal:
		return &AnswerError{Which: TotalTime, Wait: a.Total, InHeaders: inHeaders, Read: read, Length: length}
	}
	return nil
}

// fail explains an error reading the body.
func (r *Reading) fail(err error) error {
	if be := r.bound.broken(r.ctx, false, r.read, r.Response.ContentLength); be != nil {
		return be
	}
	return fmt.Errorf("reading the answer's body after %d bytes: %w", r.read, err)
}

// idleReader counts the body's bytes and gives the idle bound a new start
// each time some come.
type idleReader struct {
	r    *Reading
	body io.Reader
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.body.Read(p)
	if n > 0 {
		ir.r.read += int64(n)
		ir.r.idle.Reset(ir.r.bound.Idle)
	}
	return n, err
}

// Body reads the whole body, at most MaxBody bytes. A Content-Length past
// MaxBody is refused before anything is read.
func (r *Reading) Body() ([]byte, error) {
	max := r.bound.MaxBody
	length := r.Response.ContentLength
	if length > max {
		return nil, &AnswerError{Which: BodyBytes, Bytes: max, Length: length}
	}
	b, err := io.ReadAll(io.LimitReader(r.body, max+1))
	if err != nil {
		return nil, r.fail(err)
	}
	if int64(len(b)) > max {
		return nil, &AnswerError{Which: BodyBytes, Bytes: max, Read: r.read, Length: length}
	}
	return b, nil
}

// Event is one event of an event stream.
type Event struct {
	// Type is the value of its event field, "" when it has none.
	Type string
	// ID is the value of its id field, "" when it has none.
	ID string
	// Data is its data lines, joined by "\n".
	Data string
	// Raw is the event as it came, the blank line that ends it included.
	Raw []byte
}

// Event reads the stream's next event: its lines up to a blank line (a
// line ends at "\n", a "\r" before it dropped), at most MaxEvent bytes.
// Blank lines before an event are skipped. At the stream's end, between
// events, it returns io.EOF; in the middle of one, io.ErrUnexpectedEOF,
// wrapped.
func (r *Reading) Event() (Event, error) {
	var raw []byte
	start := 0 // where the line being read starts in raw
	for {
		line, err := r.body.ReadSlice('\n')
		if int64(len(raw)+len(line)) > r.bound.MaxEvent {
			return Event{}, &AnswerError{Which: EventBytes, Bytes: r.bound.MaxEvent, Read: int64(len(raw) + len(line)), Length: r.Response.ContentLength}
		}
		raw = append(raw, line...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(raw) == 0:
			return Event{}, io.EOF
		case errors.Is(err, io.EOF):
			return Event{}, fmt.Errorf("the event stream ended in the middle of an event (%d bytes of it came): %w", len(raw), io.ErrUnexpectedEOF)
		case err != nil:
			return Event{}, r.fail(err)
		}
		if strings.TrimRight(string(raw[start:]), "\r\n") != "" {
			start = len(raw)
			continue
		}
		if start == 0 {
			raw = raw[:0] // a blank line before any field
			continue
		}
		return parseEvent(raw), nil
	}
}

// parseEvent reads the fields of one whole event.
func parseEvent(raw []byte) Event {
	ev := Event{Raw: raw}
	var data []string
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		line = strings.TrimSuffix(line, "\r")
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			ev.Type = value
		case "id":
			ev.ID = value
		case "data":
			data = append(data, value)
		}
	}
	ev.Data = strings.Join(data, "\n")
	return ev
}

// Close stops reading: it closes the body and ends the exchange's
// deadlines.
func (r *Reading) Close() error {
	r.idle.Stop()
	var err error
	if r.Response != nil {
		err = r.Response.Body.Close()
	}
	r.cancel(context.Canceled)
	r.stop()
	return err
}
