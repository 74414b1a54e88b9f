package httpprobe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// continueWait is how long a request that asks for 100-continue waits for
// it before its body is sent anyway, as net/http's client waits.
const continueWait = time.Second

// fieldsKey carries a request's header lines, in order and spelled as
// written, from Do to the round tripper.
type fieldsKey struct{}

// roundTripper sends each request on a connection of its own, written by
// hand so that its header lines go out in the order and case the scenario
// gives, and reads the answer while the body is still going out: a server
// that answers (413, say) before it has read the whole body, and closes,
// has its answer read, where net/http's client would report only the
// write that failed. An answer's status line and headers are read within
// maxHeader bytes.
type roundTripper struct {
	maxHeader int64
	// dial connects to the server at addr; nil dials TCP.
	dial func(ctx context.Context, addr string) (net.Conn, error)
}

// RoundTrip sends req and returns its answer once its headers are in.
func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	fields, _ := ctx.Value(fieldsKey{}).([]Field)
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the request's body: %w", err)
		}
		body = b
	}
	dial := rt.dial
	if dial == nil {
		var d net.Dialer
		dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	conn, err := dial(ctx, req.URL.Host)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	lc := &limitedConn{Conn: conn}
	lc.limit.Store(rt.maxHeader)
	br := bufio.NewReader(lc)
	answers := make(chan readResult, 1)
	continued := make(chan struct{})
	go readAnswer(br, req, continued, answers)
	head := requestHead(req, fields, len(body))
	expect := hasExpectContinue(fields) && len(body) > 0
	writeDone := make(chan error, 1)
	var final readResult
	finalSeen := false
	go func() {
		if _, err := conn.Write(head); err != nil {
			writeDone <- err
			return
		}
		if expect {
			timer := time.NewTimer(continueWait)
			select {
			case <-continued:
			case <-timer.C:
			case <-ctx.Done():
			}
			timer.Stop()
		}
		_, err := conn.Write(body)
		writeDone <- err
	}()
	// The answer is what counts: a write that fails because the server
	// answered and closed is no failure of its own.
	for !finalSeen {
		select {
		case final = <-answers:
			finalSeen = true
		case werr := <-writeDone:
			if werr != nil {
				// Wait for what the server said before it closed, if
				// anything; the read ends with the connection.
				final = <-answers
				finalSeen = true
				if final.err != nil {
					final.err = fmt.Errorf("%w (sending the request: %v)", final.err, werr)
				}
			}
			writeDone = nil
		}
	}
	if final.err != nil {
		stop()
		conn.Close()
		if lc.limit.Load() == 0 {
			return nil, fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", rt.maxHeader)
		}
		return nil, final.err
	}
	lc.limit.Store(-1) // the body is bounded by its reader
	resp := final.resp
	resp.Body = &connBody{ReadCloser: resp.Body, close: func() { stop(); conn.Close() }}
	return resp, nil
}

// readResult is an answer read, or why none could be.
type readResult struct {
	resp *http.Response
	err  error
}

// readAnswer reads the answer's status line and headers, passing over
// interim (1xx) answers; a 100 Continue closes continued.
func readAnswer(br *bufio.Reader, req *http.Request, continued chan struct{}, out chan<- readResult) {
	var once sync.Once
	for {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			out <- readResult{err: err}
			return
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			if resp.StatusCode == http.StatusContinue {
				once.Do(func() { close(continued) })
			}
			continue
		}
		out <- readResult{resp: resp}
		return
	}
}

// requestHead is the request line and header lines of req: the scenario's
// fields as written, then Content-Length and Connection: close, which the
// lab sets itself.
func requestHead(req *http.Request, fields []Field, bodyLen int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", req.Method, req.URL.RequestURI())
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	fmt.Fprintf(&b, "Host: %s\r\n", host)
	for _, f := range fields {
		if strings.EqualFold(f.Name, "Host") || strings.EqualFold(f.Name, "Content-Length") || strings.EqualFold(f.Name, "Connection") {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\r\n", f.Name, f.Value)
	}
	if !hasField(fields, "User-Agent") {
		b.WriteString("User-Agent: mcplab-grader\r\n")
	}
	if bodyLen > 0 || req.Method == http.MethodPost {
		b.WriteString("Content-Length: " + strconv.Itoa(bodyLen) + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	return b.Bytes()
}

func hasField(fields []Field, name string) bool {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return true
		}
	}
	return false
}

func hasExpectContinue(fields []Field) bool {
	for _, f := range fields {
		if strings.EqualFold(f.Name, "Expect") && strings.EqualFold(strings.TrimSpace(f.Value), "100-continue") {
			return true
		}
	}
	return false
}

// limitedConn reads at most limit more bytes (no bound when negative),
// then reports the end: the header bound.
type limitedConn struct {
	net.Conn
	limit atomic.Int64
}

func (c *limitedConn) Read(p []byte) (int, error) {
	l := c.limit.Load()
	if l == 0 {
		return 0, errors.New("the answer's headers are longer than the lab reads")
	}
	if l > 0 && int64(len(p)) > l {
		p = p[:l]
	}
	n, err := c.Conn.Read(p)
	if l > 0 {
		c.limit.Add(-int64(n))
	}
	return n, err
}

// connBody is an answer's body that closes its connection with it.
type connBody struct {
	io.ReadCloser
	close func()
}

// Close closes the connection first: net/http's body would otherwise read
// on to the end of an answer that has none (a stream left open).
func (b *connBody) Close() error {
	b.close()
	b.ReadCloser.Close()
	return nil
}
