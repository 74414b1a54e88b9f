// Command starter is where your lesson 2 server begins: a stateless MCP
// server, revision 2026-07-28, that talks JSON-RPC over stdio. It is the
// company's helpdesk: it will look up support tickets for a model.
//
// Messages arrive on stdin, one to a line, and answers leave on stdout,
// one to a line. Since stdout carries the protocol, logs are written to stderr.
//
// It runs and can be graded as it is. Four parts are left for you, each
// marked "TODO(lesson 2)", in the order the lesson teaches them:
//
//  1. errors without an id: a parse error has no id member, and a request
//     whose id is null is not a request;
//  2. _meta on every request: the protocol version and the client's
//     capabilities travel with each request, not in a handshake;
//  3. tools: list get_ticket and call it;
//  4. legacy clients: answer initialize, then follow the older rules.
//
// Run it:   go run .
// Grade it: go build -o server . && lab grade --lesson 2 -- ./server
package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
)

// The protocol revision this server speaks.
const protocolVersion = "2026-07-28"

// The JSON-RPC error codes of lesson 2. -32022 is MCP's own.
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
	codeUnsupportedVersion = -32022
)

// The _meta keys every 2026-07-28 request carries in its params.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// serverInfo is who this server says it is.
var serverInfo = map[string]string{"name": "helpdesk-starter", "version": "0.1.0"}

// instructions is the sentence server/discover gives a model.
const instructions = "Support desk for gym and studio booking software: look up a support ticket by its number."

// ticketsJSON holds the tickets, a copy of the lesson's data, built into
// the program so that it finds them whatever folder it is started from.
//
//go:embed tickets.json
var ticketsJSON []byte

// message is one incoming line, decoded. ID is nil when the line has no id
// member at all, and the four bytes null when it has "id": null.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// response is one outgoing line. An empty ID leaves the id member out.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is the error member of a response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// ticket is one support ticket of tickets.json.
type ticket struct {
	ID         string `json:"id"`
	CustomerID string `json:"customer_id"`
	Subject    string `json:"subject"`
	Status     string `json:"status"`
	Priority   string `json:"priority"`
	Opened     string `json:"opened"`
	Updated    string `json:"updated"`
	Summary    string `json:"summary"`
}

// server holds what the helpdesk knows. legacy is set once a client has
// opened with initialize (TODO 4).
type server struct {
	out     *bufio.Writer
	tickets map[string]ticket
	legacy  bool
}

func main() {
	tickets, err := loadTickets(ticketsJSON)
	if err != nil {
		// Not fatal: everything but the ticket lookups still works.
		logf("no tickets: %v", err)
	}
	s := &server{out: bufio.NewWriter(os.Stdout), tickets: tickets}
	logf("listening on stdin (%d tickets)", len(tickets))

	in := bufio.NewReader(os.Stdin)
	for {
		// One line is one message. A last line without a newline still
		// counts when stdin closes.
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			s.handleLine(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			logf("reading stdin: %v", err)
			break
		}
	}
	logf("stdin closed, exiting")
}

// handleLine answers one line, or stays silent when it is a notification.
func (s *server) handleLine(line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return // an empty line, such as an extra Enter in a terminal
	}
	if !json.Valid(line) {
		logf("not JSON: %.80q", line)
		// TODO(lesson 2), part 1: errors without an id.
		// This answer carries "id": null, as lesson 1's server did. In
		// 2026-07-28 an id is never null: when the id could not be read,
		// the response has no id member at all. Leave the ID out here
		// (an empty json.RawMessage is left out of the line).
		// Fixes errors.parse-no-id.
		s.send(response{ID: json.RawMessage("null"), Error: &rpcError{Code: codeParseError, Message: "Parse error: the line is not valid JSON"}})
		return
	}
	var msg message
	if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" || msg.Method == "" {
		logf("not a request: %.80q", line)
		s.send(response{ID: usableID(msg.ID), Error: &rpcError{Code: codeInvalidRequest, Message: `Invalid Request: a request is an object with "jsonrpc": "2.0", a "method" string and an "id"`}})
		return
	}
	if msg.ID == nil {
		logf("notification %s (never answered)", msg.Method)
		return
	}
	// TODO(lesson 2), part 1, continued: a null id.
	// A message with "id": null is neither a request (its id may not be
	// null) nor a notification (it has an id member). This starter answers
	// it like a request and echoes the null. Answer -32600 Invalid Request
	// instead, with no id member.
	// Fixes errors.null-id.
	logf("request %s id=%s", msg.Method, msg.ID)

	// TODO(lesson 2), part 2: _meta on every request.
	// A 2026-07-28 request carries params._meta with metaProtocolVersion
	// and metaClientCapabilities, every time, even when an earlier request
	// on this same pipe had them. Before you look at the method:
	//   - read params._meta (params may be missing, or not an object);
	//   - if either key is missing, answer -32602 Invalid params with a
	//     message that names what is missing;
	//   - if the version is not protocolVersion, answer -32022 with
	//     data {"supported": [protocolVersion], "requested": VERSION}.
	// initialize never carries _meta (part 4), and once a client has sent
	// initialize, its requests need none.
	// Fixes meta.required and version.unsupported.

	// TODO(lesson 2), part 3: tools.
	// Add two cases to the switch below.
	//   tools/list: a result with "tools": a list holding one tool,
	//     {"name": "get_ticket", "description": ..., "inputSchema":
	//     {"type": "object", "properties": {"ticket_id": {"type":
	//     "string"}}, "required": ["ticket_id"]}}, and the caching hints
	//     "ttlMs" and "cacheScope" that server/discover has.
	//   tools/call: params has "name" and "arguments". For get_ticket,
	//     look arguments.ticket_id up in s.tickets and answer a result
	//     with "content": [{"type": "text", "text": ...}] describing the
	//     ticket. An unknown ticket is still a result, with "isError":
	//     true and a text that says what went wrong, so the model can
	//     fix its call. An unknown tool name is -32602 Invalid params.
	//   cursors: tools/list may carry params.cursor, a token the server
	//     handed out in an earlier page's nextCursor. This server puts
	//     its one tool on one page and hands out no cursor, so any
	//     cursor at all is one it never gave: answer -32602 Invalid
	//     params, not the first page again.
	// Build each result with s.complete, as server/discover does.
	// Fixes tools.list, tools.bad-cursor, tools.call, tools.unknown-ticket
	// and tools.unknown-tool.

	// TODO(lesson 2), part 4: legacy clients, one more case.
	// Clients from before 2026-07-28 open with "initialize" and send no
	// _meta. Answer it with {"protocolVersion": V, "capabilities": ...,
	// "serverInfo": serverInfo, "instructions": instructions}, where V is
	// the version the client asked for (params.protocolVersion) when it
	// is one of "2025-03-26", "2025-06-18", "2025-11-25", and else
	// "2025-11-25". Then set s.legacy: from now on this process needs no
	// _meta, answers "ping" with an empty result, and its results carry
	// no resultType (see s.complete).
	// Fixes legacy.initialize.

	switch msg.Method {
	case "server/discover":
		s.reply(msg.ID, s.complete(map[string]any{
			"supportedVersions": []string{protocolVersion},
			// The tools capability promises tools/list and tools/call:
			// part 3 keeps that promise.
			"capabilities": map[string]any{"tools": map[string]any{}},
			"instructions": instructions,
			"ttlMs":        3600000,
			"cacheScope":   "public",
		}))
		return
	}
	s.fail(msg.ID, codeMethodNotFound, "Method not found: "+msg.Method, nil)
}

// complete finishes a result: 2026-07-28 results say they are complete and
// who answered. A legacy process (part 4) leaves both out.
func (s *server) complete(result map[string]any) map[string]any {
	if !s.legacy {
		result["resultType"] = "complete"
		result["_meta"] = map[string]any{metaServerInfo: serverInfo}
	}
	return result
}

// usableID returns id when it is a string or an integer, the only ids a
// response may copy, and else nothing.
func usableID(id json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return nil
	}
	switch n := v.(type) {
	case string:
		return id
	case float64:
		if n == float64(int64(n)) && !bytes.ContainsAny(id, ".eE") {
			return id
		}
	}
	return nil
}

// reply sends a result for request id.
func (s *server) reply(id json.RawMessage, result any) {
	s.send(response{ID: id, Result: result})
}

// fail sends an error for request id.
func (s *server) fail(id json.RawMessage, code int, message string, data any) {
	s.send(response{ID: id, Error: &rpcError{Code: code, Message: message, Data: data}})
}

// send writes one message as one line, and flushes it at once: a client is
// waiting for it.
func (s *server) send(r response) {
	r.JSONRPC = "2.0"
	b, err := json.Marshal(r)
	if err != nil {
		logf("encoding an answer: %v", err)
		return
	}
	s.out.Write(append(b, '\n'))
	if err := s.out.Flush(); err != nil {
		logf("writing stdout: %v", err)
	}
}

// loadTickets decodes the tickets, by id.
func loadTickets(b []byte) (map[string]ticket, error) {
	var list []ticket
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("tickets.json: %w", err)
	}
	tickets := make(map[string]ticket, len(list))
	for _, t := range list {
		tickets[t.ID] = t
	}
	return tickets, nil
}

// ticketIDs lists the known ticket numbers in order, for error messages.
func (s *server) ticketIDs() []string {
	ids := make([]string, 0, len(s.tickets))
	for id := range s.tickets {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// logf writes one log line to stderr, never to stdout.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "helpdesk-starter: "+format+"\n", args...)
}
