// Package mcpclient is mcplab's hand-written MCP client for revision
// 2026-07-28: the JSON-RPC core (one incrementing id per connection,
// correlation by id, a timeout on every request, every waiting request
// failed at once when the connection dies), the MCP calls a host needs
// (discovery, paginated tools/list, tools/call) and two transports, stdio
// and Streamable HTTP.
//
// A Transport opens a Conn; the Client owns the ids and the waiting. The
// split follows golang.org/x/tools' jsonrpc2_v2: small interfaces, one job
// each.
package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/wire"
)

// ProtocolVersion is the MCP revision the client speaks and names in the
// _meta of every request.
const ProtocolVersion = mcp.Version

// MetaLogLevel is the _meta key that asks a server for log notifications.
const MetaLogLevel = "io.modelcontextprotocol/logLevel"

// DefaultTimeout is how long a request waits for its answer unless Options
// say otherwise.
const DefaultTimeout = 30 * time.Second

// maxKeptNotifications bounds the notifications a Reply keeps; the rest are
// only counted.
const maxKeptNotifications = 64

// ErrClosed is the error of a request made on, or waiting on, a client that
// was closed.
var ErrClosed = errors.New("the client was closed")

// Options tune a Client. The zero value is usable.
type Options struct {
	// Timeout bounds every request; 0 means DefaultTimeout. A shorter
	// deadline on a request's own context wins.
	Timeout time.Duration
	// ClientInfo is sent in every request's _meta; nil means
	// {"name":"mcplab","version":"dev"}.
	ClientInfo *mcp.Implementation
	// Logf receives notes about the connection: the server's stderr lines,
	// messages that were dropped and why. Nil means no notes.
	Logf func(format string, args ...any)
	// OnNotification receives the notifications that belong to no waiting
	// request. It is called from the goroutine that received the message
	// (the stream's reader, or an HTTP exchange's caller) and must not block.
	OnNotification func(n *wire.Message)
}

// Client is a connection to one MCP server. Its methods are safe for
// concurrent use.
type Client struct {
	conn   Conn
	opts   Options
	meta   []byte // the fixed part of every request's _meta, without the closing brace
	mu     sync.Mutex
	nextID int64
	// calls holds every request from its sending until Call returns, so
	// that a notification that trails the response on the same exchange
	// still finds its request.
	calls map[int64]*waiter
	dead  error
}

// waiter is one request waiting for its answer.
type waiter struct {
	id       int64
	method   string
	progress bool
	done     chan struct{}
	// set under Client.mu; answered is set when done is closed.
	answered bool
	result   json.RawMessage
	err      error
	notes    []*wire.Message
	seen     int
}

// Connect opens a connection through t and returns a Client that uses it.
func Connect(ctx context.Context, t Transport, opts Options) (*Client, error) {
	c := &Client{opts: opts, calls: make(map[int64]*waiter)}
	if c.opts.Timeout <= 0 {
		c.opts.Timeout = DefaultTimeout
	}
	info := mcp.Implementation{Name: "mcplab", Version: "dev"}
	if opts.ClientInfo != nil {
		info = *opts.ClientInfo
	}
	infoJSON, err := json.Marshal(info)
	if err != nil {
		return nil, fmt.Errorf("encoding clientInfo: %w", err)
	}
	c.meta = fmt.Appendf(nil, `{%q:%q,%q:{},%q:%s`, mcp.MetaProtocolVersion, ProtocolVersion, mcp.MetaClientCapabilities, mcp.MetaClientInfo, infoJSON)
	conn, err := t.Connect(ctx, (*receiver)(c))
	if err != nil {
		return nil, err
	}
	c.conn = conn
	return c, nil
}

// Close ends the connection. Requests still waiting fail with ErrClosed.
func (c *Client) Close() error {
	c.fail(ErrClosed)
	return c.conn.Close()
}

// Reply is the answer to a request.
type Reply struct {
	// ID is the id the request was sent with.
	ID int64
	// Result is the response's result, as sent.
	Result json.RawMessage
	// Notifications are those that came for this request: on its HTTP
	// exchange, or carrying its progress token. At most 64 are kept.
	Notifications []*wire.Message
	// NotificationCount counts them all, kept or not.
	NotificationCount int
}

// CallOption changes one request.
type CallOption func(*callOptions)

type callOptions struct {
	progress bool
	logLevel string
}

// WithProgress asks the server for progress notifications: the request's
// _meta gets a progressToken, which is the request's own id.
func WithProgress() CallOption { return func(o *callOptions) { o.progress = true } }

// WithLogLevel asks the server for log notifications at level and above
// (the deprecated logging feature; without it a server must send none).
func WithLogLevel(level string) CallOption { return func(o *callOptions) { o.logLevel = level } }

// Call sends one request and waits for its answer, at most the client's
// timeout. params must encode to a JSON object (or be nil) without a _meta
// member: the client adds _meta itself. An error response comes back as an
// error that errors.As finds a *wire.Error in; a result that asks for input
// as an *InputRequiredError.
func (c *Client) Call(ctx context.Context, method string, params any, opts ...CallOption) (*Reply, error) {
	var o callOptions
	for _, f := range opts {
		f(&o)
	}
	fields, name, err := paramsObject(method, params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.dead != nil {
		err := c.dead
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	c.nextID++
	w := &waiter{id: c.nextID, method: method, progress: o.progress, done: make(chan struct{})}
	c.calls[w.id] = w
	c.mu.Unlock()
	defer c.forget(w.id)

	out := &Outgoing{
		ID:              strconv.AppendInt(nil, w.id, 10),
		Method:          method,
		Name:            name,
		ProtocolVersion: ProtocolVersion,
		Body:            c.encodeRequest(w.id, method, fields, o),
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	// Send is bounded by ctx. On HTTP it returns once the exchange is over,
	// its response (if any) delivered; on a stream once the line is written.
	sendErr := c.conn.Send(ctx, out)
	select {
	case <-w.done:
		return c.reply(w)
	default:
	}
	if sendErr != nil {
		c.forget(w.id)
		if errors.Is(sendErr, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, &TimeoutError{Method: method, ID: w.id}
		}
		return nil, fmt.Errorf("%s (id %d): %w", method, w.id, sendErr)
	}
	select {
	case <-w.done:
		return c.reply(w)
	case <-ctx.Done():
		c.forget(w.id)
		select {
		case <-w.done: // answered just as the time ran out
			return c.reply(w)
		default:
		}
		c.cancelRemote(w.id, ctx.Err())
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &TimeoutError{Method: method, ID: w.id}
		}
		return nil, fmt.Errorf("%s (id %d): %w", method, w.id, ctx.Err())
	}
}

// TimeoutError is the error of a request that got no answer in time.
type TimeoutError struct {
	Method string
	ID     int64
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s (id %d) got no answer in time; an answer that comes later will be dropped", e.Method, e.ID)
}

// Is makes errors.Is(err, context.DeadlineExceeded) true for a timeout.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

func (c *Client) reply(w *waiter) (*Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.err != nil {
		return nil, fmt.Errorf("%s (id %d): %w", w.method, w.id, w.err)
	}
	r := &Reply{ID: w.id, Result: w.result, Notifications: w.notes, NotificationCount: w.seen}
	if err := checkResultType(w.result); err != nil {
		return r, fmt.Errorf("%s (id %d): %w", w.method, w.id, err)
	}
	return r, nil
}

// forget stops waiting for id: an answer that comes later is dropped.
func (c *Client) forget(id int64) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
}

// cancelRemote tells a stream server that the client gave up on id, as the
// stdio transport requires. HTTP cancels by closing the exchange, which the
// request's context already did.
func (c *Client) cancelRemote(id int64, why error) {
	if _, ok := c.conn.(cancelNotifier); !ok {
		return
	}
	reason := "the client stopped waiting: " + why.Error()
	if errors.Is(why, context.DeadlineExceeded) {
		reason = "the client timed out waiting for the answer"
	}
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":%s}}`, id, quote(reason))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.conn.Send(ctx, &Outgoing{Method: "notifications/cancelled", ProtocolVersion: ProtocolVersion, Body: body}); err != nil {
		c.logf("could not send notifications/cancelled for id %d: %v", id, err)
	}
}

// cancelNotifier marks a conn whose server expects notifications/cancelled.
type cancelNotifier interface{ wantsCancelNotice() }

// fail ends every waiting request with err and refuses new ones.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		c.dead = err
	}
	for _, w := range c.calls {
		if !w.answered {
			w.answered, w.err = true, err
			close(w.done)
		}
	}
}

func (c *Client) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
	}
}

// encodeRequest writes the request line: the caller's params first, then
// _meta, in a fixed order so the bytes on the wire are predictable.
func (c *Client) encodeRequest(id int64, method string, fields []byte, o callOptions) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":%s,"params":{`, id, quote(method))
	if len(fields) > 0 {
		b.Write(fields)
		b.WriteByte(',')
	}
	b.WriteString(`"_meta":`)
	b.Write(c.meta)
	if o.logLevel != "" {
		fmt.Fprintf(&b, `,%q:%s`, MetaLogLevel, quote(o.logLevel))
	}
	if o.progress {
		fmt.Fprintf(&b, `,"progressToken":%d`, id)
	}
	b.WriteString("}}}")
	return b.Bytes()
}

// paramsObject encodes params and returns its members without the braces,
// and the name a transport mirrors into a header.
func paramsObject(method string, params any) ([]byte, *string, error) {
	if params == nil {
		return nil, nil, nil
	}
	raw, err := marshal(params)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: encoding params: %w", method, err)
	}
	raw = bytes.TrimSpace(raw)
	if bytes.Equal(raw, []byte("null")) {
		return nil, nil, nil
	}
	var members map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &members) != nil {
		return nil, nil, fmt.Errorf("%s: params must encode to a JSON object, not %s", method, raw)
	}
	if _, ok := members["_meta"]; ok {
		return nil, nil, fmt.Errorf("%s: params must not carry _meta; the client writes it (use WithProgress or WithLogLevel for the optional keys)", method)
	}
	var name *string
	key := mcp.NameMember(method)
	if v, ok := members[key]; ok && key != "" {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, nil, fmt.Errorf("%s: params.%s must be a string", method, key)
		}
		name = &s
	}
	inner := bytes.TrimSpace(raw[1 : len(raw)-1])
	return inner, name, nil
}

// marshal encodes v as compact JSON without escaping <, > and &.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b.Bytes()); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func quote(s string) string {
	b, _ := marshal(s)
	return string(b)
}

// receiver is the Client as its Conn sees it.
type receiver Client

func (r *receiver) Deliver(m *wire.Message, via json.RawMessage) {
	c := (*Client)(r)
	switch m.Kind {
	case wire.KindNotification:
		c.deliverNotification(m, via)
	case wire.KindResponse:
		c.deliverResponse(m, via)
	}
}

func (r *receiver) Reject(raw []byte, reason string) {
	(*Client)(r).logf("ignored a message from the server: %s: %s", reason, shorten(raw, 120))
}

func (r *receiver) Broken(err error) {
	(*Client)(r).fail(&ConnError{Err: err})
}

// ConnError is the error of every request that was waiting when the
// connection died, and of every request made after.
type ConnError struct{ Err error }

func (e *ConnError) Error() string { return "the connection to the server is gone: " + e.Err.Error() }
func (e *ConnError) Unwrap() error { return e.Err }

func (c *Client) deliverResponse(m *wire.Message, via json.RawMessage) {
	id, ok := intID(m.ID)
	if !ok && bytes.Equal(m.ID, wire.Null) && m.Error != nil && via != nil {
		// An error to a request the server could not read, on that
		// request's own exchange: it can only be the answer to it.
		id, ok = intID(via)
	}
	c.mu.Lock()
	w := c.calls[id]
	if !ok || w == nil || w.answered {
		c.mu.Unlock()
		c.logf("dropped a response with id %s: no request is waiting for it (it came too late, was answered already, or the id was never sent)", m.ID)
		return
	}
	w.answered = true
	if m.Error != nil {
		w.err = m.Error
	} else {
		w.result = m.Result
	}
	close(w.done)
	c.mu.Unlock()
}

func (c *Client) deliverNotification(m *wire.Message, via json.RawMessage) {
	c.mu.Lock()
	var w *waiter
	if id, ok := intID(via); ok {
		// The exchange's own request, answered already or not.
		w = c.calls[id]
	} else if m.Method == "notifications/progress" {
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			if id, ok := intID(p.Token); ok && c.calls[id] != nil && c.calls[id].progress && !c.calls[id].answered {
				w = c.calls[id]
			}
		}
	}
	if w != nil {
		w.seen++
		if len(w.notes) < maxKeptNotifications {
			w.notes = append(w.notes, m)
		}
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(m)
	} else {
		c.logf("notification %s for no waiting request", m.Method)
	}
}

func intID(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || raw[0] == '"' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

// shorten returns b as a string of at most n bytes, marked when cut.
func shorten(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
