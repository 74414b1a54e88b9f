package mcpclient

import (
	"context"
	"encoding/json"

	"github.com/mcplab/mcplab/lab/wire"
)

// A Transport opens a connection to one server. The client hands it the
// Receiver that must get every message the server sends back.
type Transport interface {
	Connect(ctx context.Context, r Receiver) (Conn, error)
}

// A Conn carries the client's messages to one server.
//
// On a stream (stdio) Send returns once the message is written, and what the
// server sends comes to the Receiver from a reading goroutine. On HTTP Send
// returns once the answer to the POST has been read, after the Receiver got
// every message in it, and fails when that answer ended before the response.
type Conn interface {
	// Send sends one request or notification. It is safe for concurrent use.
	// ctx bounds the sending (and on HTTP the whole exchange).
	Send(ctx context.Context, m *Outgoing) error
	// Close ends the connection and releases what it holds; for a server
	// the client started, that is the server process too.
	Close() error
}

// Outgoing is one message the client sends, with the fields a transport may
// need to mirror outside the body (HTTP copies them into headers).
type Outgoing struct {
	// ID is the request's id; nil for a notification.
	ID json.RawMessage
	// Method is the body's "method".
	Method string
	// Name is the body's params.name (tools/call, prompts/get) or
	// params.uri (resources/read); nil when the method has none.
	Name *string
	// ProtocolVersion is the revision named in the body's _meta.
	ProtocolVersion string
	// Body is the whole message as JSON, without a trailing newline.
	Body []byte
}

// A Receiver takes what a Conn receives from the server. Its methods are
// called from one goroutine at a time per exchange; they must not block.
type Receiver interface {
	// Deliver passes on one message from the server. via is the id of the
	// request whose exchange carried it when the transport knows it (the
	// POST a message came back on), else nil.
	Deliver(m *wire.Message, via json.RawMessage)
	// Reject reports bytes from the server that are not a message the client
	// can use, and why. The connection carries on.
	Reject(raw []byte, reason string)
	// Broken reports that the connection can carry nothing more. It is
	// called at most once.
	Broken(err error)
}

// parseIncoming reads one message from a server: a response, or a
// notification. A request is refused, since a 2026-07-28 server never
// sends one.
func parseIncoming(raw []byte) (*wire.Message, string) {
	var probe struct {
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.Method != nil {
		m, problem := wire.ParseRequest(raw)
		if problem != nil {
			return nil, problem.Err.Message
		}
		if m.Kind == wire.KindRequest {
			return nil, "it is a request (" + m.Method + "); a 2026-07-28 server never sends requests, it asks for input inside a result"
		}
		return m, ""
	}
	return wire.ParseResponse(raw)
}
