package mcpclient

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/safefile"
	"github.com/mcplab/mcplab/lab/wire"
)

// HTTP is the Streamable HTTP transport: every message is its own POST to
// one endpoint, with the MCP-Protocol-Version, Mcp-Method and Mcp-Name
// headers mirroring the body. The answer is one JSON message, or an event
// stream of notifications and the response, which is the message whose id
// is the request's, wherever it falls in the stream.
type HTTP struct {
	// URL is the MCP endpoint, such as http://127.0.0.1:3115/mcp.
	URL string
	// Client sends the POSTs; nil means a client of its own. Each request's
	// context bounds its exchange.
	Client *http.Client
	// Header holds extra headers for every POST (Authorization, say).
	Header http.Header
	// MaxMessage bounds one message in an answer; 0 means wire.DefaultMaxLine.
	MaxMessage int
	// Linger is how long an event stream may stay open after its response,
	// for notifications that trail it; 0 means one second.
	Linger time.Duration
}

// Connect checks the endpoint's address. HTTP needs no connection up
// front: each request opens its own exchange.
func (t *HTTP) Connect(_ context.Context, r Receiver) (Conn, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("the server address %q is not a URL: %w", t.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("the server address %q is not an http:// or https:// URL", t.URL)
	}
	hc := t.Client
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return &httpConn{t: t, hc: hc, recv: r}, nil
}

type httpConn struct {
	t    *HTTP
	hc   *http.Client
	recv Receiver
}

// Close drops the idle connections.
func (c *httpConn) Close() error {
	c.hc.CloseIdleConnections()
	return nil
}

// HeaderValue encodes v for an Mcp-Name or Mcp-Param header: as it is when
// it is plain visible ASCII (spaces inside allowed), else as the sentinel
// =?base64?...?= around the standard, padded Base64 of its UTF-8 bytes. A
// plain value that looks like the sentinel is encoded too, so a server
// never decodes what was meant literally.
func HeaderValue(v string) string {
	if plainHeaderValue(v) && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

func plainHeaderValue(v string) bool {
	if v == "" {
		return true
	}
	if v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return false
		}
	}
	return true
}

// Send POSTs the message and reads the answer.
func (c *httpConn) Send(ctx context.Context, m *Outgoing) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.t.URL, bytes.NewReader(m.Body))
	if err != nil {
		return fmt.Errorf("building the POST: %w", err)
	}
	for k, vs := range c.t.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	// Set as the specification spells them; header names are
	// case-insensitive, so this is for the people reading a capture.
	req.Header["User-Agent"] = []string{"mcplab"}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["Accept"] = []string{"application/json, text/event-stream"}
	req.Header["MCP-Protocol-Version"] = []string{m.ProtocolVersion}
	req.Header["Mcp-Method"] = []string{m.Method}
	if m.Name != nil {
		req.Header["Mcp-Name"] = []string{HeaderValue(*m.Name)}
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", c.t.URL, err)
	}
	defer resp.Body.Close()
	if m.ID == nil {
		if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusOK {
			return nil
		}
		return fmt.Errorf("the server refused the notification: %s%s", resp.Status, bodySnippet(resp.Body))
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		return c.readJSON(resp, m.ID)
	case "text/event-stream":
		return c.readStream(ctx, resp, m.ID)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the server answered %s%s", resp.Status, bodySnippet(resp.Body))
	}
	return fmt.Errorf("the server answered %s with Content-Type %q; an MCP answer is application/json or text/event-stream", resp.Status, resp.Header.Get("Content-Type"))
}

func (c *httpConn) maxMessage() int {
	if c.t.MaxMessage > 0 {
		return c.t.MaxMessage
	}
	return wire.DefaultMaxLine
}

// readJSON takes an answer that is one JSON message.
func (c *httpConn) readJSON(resp *http.Response, id json.RawMessage) error {
	limit := c.maxMessage()
	body, over, err := safefile.ReadAtMost(resp.Body, int64(limit))
	if err != nil {
		return fmt.Errorf("reading the answer (%s): %w", resp.Status, err)
	}
	if over {
		return fmt.Errorf("the answer is longer than the %d-byte limit", limit)
	}
	body = bytes.TrimSpace(body)
	m, why := parseIncoming(body)
	if m == nil {
		c.recv.Reject(body, why)
		return fmt.Errorf("the answer (%s) is not a JSON-RPC message: %s", resp.Status, why)
	}
	c.recv.Deliver(m, id)
	if answers(m, id) {
		return nil
	}
	return fmt.Errorf("the answer (%s) holds no response to request %s", resp.Status, id)
}

// answers reports whether m is the response to the request id, or an error
// that could not name the request it answers (id null).
func answers(m *wire.Message, id json.RawMessage) bool {
	return m.Kind == wire.KindResponse && (wire.SameID(m.ID, id) || bytes.Equal(m.ID, wire.Null) && m.Error != nil)
}

// readStream takes an event stream: every event's data is one message.
// Comments, event names, ids and retry fields are ignored. The stream must
// carry the response; one that ends or breaks first fails the request at
// once. After the response the stream may linger briefly for trailing
// notifications.
func (c *httpConn) readStream(ctx context.Context, resp *http.Response, id json.RawMessage) error {
	f := wire.NewFramer(resp.Body, wire.MaxLine(c.maxMessage()), wire.KeepBlankLines())
	var data bytes.Buffer
	inEvent, got, messages := false, false, 0
	var lingering *time.Timer
	defer func() {
		if lingering != nil {
			lingering.Stop()
		}
	}()
	for {
		line, err := f.Next()
		if err != nil {
			if got {
				return nil
			}
			noun := "messages"
			if messages == 1 {
				noun = "message"
			}
			what := fmt.Sprintf("after %d %s and before the response to request %s", messages, noun, id)
			if inEvent {
				what += " (an event without its closing blank line was dropped)"
			}
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("the event stream ended %s", what)
			}
			if ctx.Err() != nil {
				return fmt.Errorf("the event stream was closed %s: %w", what, ctx.Err())
			}
			return fmt.Errorf("the event stream broke %s: %w", what, err)
		}
		if len(line) == 0 {
			if data.Len() > 0 {
				raw := bytes.TrimSuffix(data.Bytes(), []byte("\n"))
				messages++
				if m, why := parseIncoming(raw); m == nil {
					c.recv.Reject(raw, why)
				} else {
					c.recv.Deliver(m, id)
					if !got && answers(m, id) {
						got = true
						linger := c.t.Linger
						if linger <= 0 {
							linger = time.Second
						}
						lingering = time.AfterFunc(linger, func() { resp.Body.Close() })
					}
				}
			}
			data.Reset()
			inEvent = false
			continue
		}
		inEvent = true
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 {
			continue // a comment, such as a keep-alive
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if string(field) == "data" {
			if data.Len()+len(value)+1 > c.maxMessage() {
				return fmt.Errorf("an event in the stream is longer than the %d-byte limit", c.maxMessage())
			}
			data.Write(value)
			data.WriteByte('\n')
		}
	}
}

// bodySnippet quotes the start of an error answer's body.
func bodySnippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 300))
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	return ": " + strings.ToValidUTF8(string(b), "\uFFFD")
}
