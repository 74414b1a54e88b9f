// Package httpprobe is the lab playing the client against a student's
// Streamable HTTP server (lesson 4): it sends one HTTP request at a time
// to one of the copies of the server it was given, reads each answer
// within lab/httpbound's bounds (headers, a JSON body, each event of an
// event stream, the time between bytes and in all), and records what
// crossed as lab/event Records: the request (Post, with its headers), the
// status and content type (Status), each JSON-RPC message of the answer
// (Answer) and what it saw go wrong (Note). It judges nothing: which
// answer is right is grading/httpserverlesson's to say.
package httpprobe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/httpbound"
)

// Field is one header line of a request, its name spelled as it goes on
// the wire (a scenario may send mcp-method in lower case on purpose).
type Field struct {
	Name, Value string
}

// Request is one HTTP request the lab sends a student's server.
type Request struct {
	// Method and Path are the request line's: POST /mcp.
	Method, Path string
	// Header is the header lines in order. A Host line sets the Host
	// header (else it names the copy's address).
	Header []Field
	// Body is the body, sent with its Content-Length; none when empty.
	Body []byte
}

// Message is one JSON-RPC message of an answer: a JSON body, or one
// event's data.
type Message struct {
	// Text is the message as it came.
	Text string
	// Value is its JSON object, nil when it is not one.
	Value map[string]any
	// At is when it came, since the probe started.
	At time.Duration
}

// Event is one event of an event-stream answer, as it came.
type Event struct {
	httpbound.Event
	// At is when it came, since the probe started.
	At time.Duration
}

// Answer is what a server answered one request.
type Answer struct {
	// Status is the answer's status code; 0 when no answer came.
	Status int
	// ContentType is the Content-Type header as sent; MediaType its media
	// type in lower case, without parameters ("" when none can be read).
	ContentType, MediaType string
	// Header is the answer's headers.
	Header http.Header
	// Body is a body that is not an event stream, read whole.
	Body []byte
	// Stream is set for an event-stream answer, whose events are Events.
	Stream bool
	Events []Event
	// Messages are the answer's JSON-RPC messages: the body, or each
	// event's data, in order.
	Messages []Message
	// Err says why the answer could not be read to its end: the server
	// could not be reached, a bound broke, the stream broke off. Nil for
	// an answer read whole.
	Err error
	// Deadline is set when Err is a wait that ran out, which a slow
	// machine can cause as well as a wrong server.
	Deadline bool
	// OpenAfterResponse is set when an event stream had not ended
	// EndWait after it carried the response to the request's id.
	OpenAfterResponse bool
	// Sent and Done are when the request was sent and the answer's end
	// read, since the probe started.
	Sent, Done time.Duration
}

// Response returns the answer's message whose id equals id (compared as
// JSON) and that is a response (a result or an error member), and its
// index in Messages; -1 when there is none.
func (a *Answer) Response(id json.RawMessage) (Message, int) {
	for i, m := range a.Messages {
		if m.Value == nil || !IsResponse(m.Value) {
			continue
		}
		got, ok := m.Value["id"]
		if !ok {
			continue
		}
		raw, _ := json.Marshal(got)
		if jsonEqual(raw, id) {
			return m, i
		}
	}
	return Message{}, -1
}

// IsResponse reports whether a JSON-RPC message is a response: it has a
// result or an error member, and no method.
func IsResponse(v map[string]any) bool {
	_, method := v["method"]
	_, result := v["result"]
	_, errm := v["error"]
	return !method && (result || errm)
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ax, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(ax, by)
}

// Probe sends requests to a student's server and records what crossed.
// Its zero value is not usable: make one with New.
type Probe struct {
	bound  httpbound.Answer
	end    time.Duration
	client *http.Client
	start  time.Time
	record func(event.Record)
}

// New returns a probe that reads answers within bound, waits endWait for
// an event stream to end once it has carried its response, times what it
// sees from start, and hands each Record to record (nil: none).
func New(bound httpbound.Answer, endWait time.Duration, start time.Time, record func(event.Record)) *Probe {
	if record == nil {
		record = func(event.Record) {}
	}
	maxHeader := bound.MaxHeaderBytes
	if maxHeader <= 0 {
		maxHeader = httpbound.DefaultAnswerHeaderBytes
	}
	client := &http.Client{Transport: roundTripper{maxHeader: maxHeader}, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a redirect is an answer of its own
	}}
	return &Probe{bound: bound, end: endWait, client: client, start: start, record: record}
}

// DialWith makes the probe reach each server through dial, given the
// address of the request (host:port), instead of over TCP: a server in a
// sandbox's own network is reached through a tunnel (see lab/tunnel).
// Call it before the first Do.
func (p *Probe) DialWith(dial func(ctx context.Context, addr string) (net.Conn, error)) {
	rt := p.client.Transport.(roundTripper)
	rt.dial = dial
	p.client.Transport = rt
}

// Close lets go of the probe's connections.
func (p *Probe) Close() { p.client.CloseIdleConnections() }

func (p *Probe) since() time.Duration { return time.Since(p.start) }

// Do sends req to the server at addr (host:port), which the records name
// copy, as exchange number conn, and reads its answer; id is the
// request's JSON-RPC id, nil for a notification or a request that is not
// JSON-RPC. It returns when the answer has been read, a bound broke or
// ctx ended.
func (p *Probe) Do(ctx context.Context, copy string, conn int, addr string, req Request, id json.RawMessage) *Answer {
	a := &Answer{}
	ctx = context.WithValue(ctx, fieldsKey{}, req.Header)
	hreq, err := p.build(ctx, addr, req)
	if err != nil {
		a.Err = err
		p.note(copy, conn, "the lab could not make the request: "+err.Error())
		return a
	}
	recorded := hreq.Header.Clone()
	recorded[":method"] = []string{req.Method}
	recorded[":path"] = []string{req.Path}
	if hreq.Host != "" {
		recorded["Host"] = []string{hreq.Host}
	}
	a.Sent = p.since()
	text := event.CutText(string(req.Body), event.TextMax, fmt.Sprintf("a request's body is kept up to %d bytes", event.TextMax))
	p.record(event.Record{At: a.Sent, Kind: event.Post, Server: copy, Conn: conn, Header: recorded, Text: text})
	reading, err := p.bound.Do(ctx, p.client, hreq)
	if err != nil {
		p.fail(a, copy, conn, err)
		return a
	}
	defer reading.Close()
	resp := reading.Response
	a.Status, a.Header = resp.StatusCode, resp.Header
	a.ContentType = resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(a.ContentType); err == nil {
		a.MediaType = strings.ToLower(mt)
	}
	p.record(event.Record{At: p.since(), Kind: event.Status, Server: copy, Conn: conn, Status: a.Status, Text: a.ContentType})
	if a.MediaType == "text/event-stream" {
		a.Stream = true
		p.readStream(reading, a, copy, conn, id)
	} else {
		p.readBody(reading, a, copy, conn)
	}
	a.Done = p.since()
	return a
}

// build makes the http.Request of req; its header lines go to the round
// tripper as written, in order.
func (p *Probe) build(ctx context.Context, addr string, req Request) (*http.Request, error) {
	var body io.Reader
	if len(req.Body) > 0 {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, "http://"+addr+req.Path, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
	}
	hreq.Header = http.Header{}
	for _, f := range req.Header {
		if strings.EqualFold(f.Name, "Host") {
			hreq.Host = f.Value
			continue
		}
		// The record keeps names in their canonical form (a header's
		// name has no case); the wire gets them as written.
		hreq.Header.Add(f.Name, f.Value)
	}
	return hreq, nil
}

// readBody reads a body that is not an event stream, whole; a non-empty
// one is one message.
func (p *Probe) readBody(r *httpbound.Reading, a *Answer, copy string, conn int) {
	body, err := r.Body()
	a.Body = body
	if err != nil {
		p.fail(a, copy, conn, err)
		return
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return
	}
	m := message(string(body), p.since())
	a.Messages = append(a.Messages, m)
	p.record(event.Record{At: m.At, Kind: event.Answer, Server: copy, Conn: conn, Text: m.Text})
}

// readStream reads an event stream's events, each one message, until it
// ends; once it has carried the response to id it must end within the
// probe's end wait.
func (p *Probe) readStream(r *httpbound.Reading, a *Answer, copy string, conn int, id json.RawMessage) {
	var timer *time.Timer
	stopped := make(chan struct{})
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		ev, err := r.Event()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			select {
			case <-stopped:
				a.OpenAfterResponse = true
				p.note(copy, conn, fmt.Sprintf("the event stream was still open %v after it carried the response; the lab stopped reading", p.end))
			default:
				p.fail(a, copy, conn, err)
			}
			return
		}
		at := p.since()
		a.Events = append(a.Events, Event{Event: ev, At: at})
		m := message(ev.Data, at)
		a.Messages = append(a.Messages, m)
		p.record(event.Record{At: at, Kind: event.Answer, Server: copy, Conn: conn, Text: ev.Data})
		if timer == nil && id != nil {
			if _, i := a.Response(id); i >= 0 {
				timer = time.AfterFunc(p.end, func() { close(stopped); r.Close() })
			}
		}
	}
}

// message reads one message's text.
func message(text string, at time.Duration) Message {
	m := Message{Text: text, At: at}
	var v map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(text)), &v) == nil {
		m.Value = v
	}
	return m
}

// fail records why an answer could not be read.
func (p *Probe) fail(a *Answer, copy string, conn int, err error) {
	a.Err = err
	var be *httpbound.AnswerError
	if errors.As(err, &be) {
		a.Deadline = be.Which == httpbound.IdleTime || be.Which == httpbound.TotalTime
	}
	p.record(event.Record{At: p.since(), Kind: event.Note, Server: copy, Conn: conn, Text: err.Error(), Deadline: a.Deadline})
}

// note records a note of the probe's about a copy's connection.
func (p *Probe) note(copy string, conn int, text string) {
	p.record(event.Record{At: p.since(), Kind: event.Note, Server: copy, Conn: conn, Text: text})
}
