// Command starter is where your lesson 4 server begins: lesson 2's help
// desk, a stateless MCP server of revision 2026-07-28, served over
// Streamable HTTP instead of stdio. Each JSON-RPC message arrives as the
// body of one POST to /mcp, and its answer is the body of the HTTP answer.
//
// helpdesk.go is the help desk itself, finished in lesson 2. This file is
// the HTTP side. It runs and can be graded as it is. Six parts are left
// for you, each marked "TODO(lesson 4)", in the order the lesson teaches
// them:
//
//  1. the status of each answer: 202 for a notification, 404 for an
//     unknown method, 405 for anything but POST;
//  2. the request headers MCP-Protocol-Version, Mcp-Method and Mcp-Name,
//     checked against the body;
//  3. Origin and Host, against DNS rebinding;
//  4. Accept, Content-Type and a bound on the body;
//  5. statelessness: a cursor any copy of the server can read
//     (helpdesk.go);
//  6. ending cleanly on SIGTERM.
//
// It listens on 127.0.0.1, on the port the environment variable PORT
// names (3140 when it is not set), and logs on stderr.
//
// Run it:   go run .
// Grade it: go build -o server . && lab grade --lesson 4 -- ./server
//
// (Grade the program itself, not go run: SIGTERM ends go run's own
// process before your server can answer it, so lifecycle.sigterm would
// fail whatever your server does.)
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// defaultPort is the port used when PORT is not set.
const defaultPort = "3140"

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = defaultPort
	}
	d, err := newDesk()
	if err != nil {
		logf("%v", err)
		os.Exit(1)
	}
	// Only this machine can reach 127.0.0.1: a server for one user's
	// tools should not listen on every network the machine is on.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		logf("%v", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: &handler{desk: d, port: port}, ReadHeaderTimeout: 10 * time.Second}
	// TODO(lesson 4), part 6: ending cleanly on SIGTERM.
	// Whoever runs the server (a container engine, systemd, the grader)
	// asks it to stop with SIGTERM. As it is, the signal kills the process
	// in the middle of whatever it was answering, and its exit status says
	// it was killed. Catch SIGTERM (signal.NotifyContext), then call
	// srv.Shutdown: it stops listening and waits for the requests in
	// flight. Wait for Shutdown to return before main returns, so the
	// exit status is 0.
	// Fixes lifecycle.sigterm.
	logf("listening on http://%s/mcp (MCP %s)", ln.Addr(), protocolVersion)
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		logf("%v", err)
		os.Exit(1)
	}
}

// handler answers the POSTs to /mcp.
type handler struct {
	desk *desk
	port string
}

// ServeHTTP answers one HTTP request.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/mcp" {
		http.Error(w, "the MCP endpoint is /mcp", http.StatusNotFound)
		return
	}
	// TODO(lesson 4), part 1: the status of each answer (and see below).
	// Every method reaches the code below, so a GET gets a parse error.
	// Clients of older revisions open a GET stream or DELETE a session;
	// 2026-07-28 has neither. Answer anything but POST with 405 Method
	// Not Allowed and the header "Allow: POST".
	// Fixes http.get-405.
	// TODO(lesson 4), part 3: Origin and Host.
	// A web page the user opens may POST here too: its browser adds an
	// Origin header naming the page's site. Answer 403 Forbidden when
	// Origin is set and is not this server's own (http://127.0.0.1:PORT
	// or http://localhost:PORT, see ownOrigin below). Refuse with 403 a
	// Host that is not a loopback name as well (loopbackHost): that is
	// how DNS rebinding shows.
	// Fixes security.origin.
	// TODO(lesson 4), part 4: Content-Type, Accept and a bounded body.
	// The body is read whole, however long it is: a client can make this
	// process hold gigabytes. Read at most 1 MiB (http.MaxBytesReader) and
	// answer a longer one with 413. While here, refuse a body that is not
	// Content-Type: application/json with 415 (mime.ParseMediaType), and
	// see acceptsStream below.
	// Fixes http.body-bound (http.accept also needs acceptsStream, below).
	body, err := io.ReadAll(r.Body)
	if err != nil {
		logf("reading a body: %v", err)
		return
	}
	msg, bad := parse(body)
	if bad != nil {
		writeMessage(w, http.StatusBadRequest, bad)
		return
	}
	if msg.ID == nil {
		// TODO(lesson 4), part 1, continued: a notification.
		// Nothing answers a notification, so this writes an empty 200.
		// Over HTTP a notification the server takes gets 202 Accepted,
		// with no body and no Content-Type.
		// Fixes http.notification-202.
		logf("notification %s", msg.Method)
		return
	}
	// TODO(lesson 4), part 2: the request headers.
	// Every POST carries MCP-Protocol-Version, every request Mcp-Method,
	// and tools/call (like resources/read and prompts/get) Mcp-Name. They
	// repeat the body so that a proxy can route without reading it, and
	// the server must refuse a POST whose headers and body disagree.
	// Write checkHeaders: a header missing, or not equal to the body's
	// value (Mcp-Name decoded first when it is =?base64?...?=), gets 400
	// with error -32020 and the request's id.
	// Fixes headers.protocol-version, headers.method and headers.name.
	logf("%s id=%s", msg.Method, msg.ID)
	reply := h.desk.answer(msg)
	if reply.Error == nil && msg.Method == "tools/call" && acceptsStream(r.Header) {
		writeStream(w, reply)
		return
	}
	writeMessage(w, status(reply), reply)
}

// status is the HTTP status of an answer.
func status(r *response) int {
	if r.Error == nil {
		return http.StatusOK
	}
	// TODO(lesson 4), part 1, continued: a method the server does not have.
	// Over HTTP, -32601 goes with 404 Not Found, not 400.
	// Fixes mcp.unknown-method.
	return http.StatusBadRequest
}

// acceptsStream says whether the client reads an event stream. The help
// desk answers tools/call with one, to show the second answer shape.
func acceptsStream(h http.Header) bool {
	// TODO(lesson 4), part 4, continued: Accept.
	// This sends an event stream to every client, even one whose Accept
	// header lists only application/json and cannot read a stream. Read
	// Accept and return true only when it lists text/event-stream (or
	// text/* or */*), or when there is no Accept header at all.
	// Fixes http.accept.
	return true
}

// writeMessage answers with one JSON-RPC message as application/json.
func writeMessage(w http.ResponseWriter, code int, r *response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(encode(r))
}

// writeStream answers with an event stream that carries the response: one
// event, "data: " and the message, then a blank line. Notifications about
// the request, had the help desk any, would come first, each an event of
// its own; the response ends the stream.
func writeStream(w http.ResponseWriter, r *response) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\n\n", encode(r))
}

// logf writes one log line to stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "helpdesk-starter: "+format+"\n", args...)
}
