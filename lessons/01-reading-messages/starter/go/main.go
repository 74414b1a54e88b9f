// Command starter is where your lesson 1 server begins: a stdio JSON-RPC
// server that reads requests from stdin, one per line, and writes one answer
// per line to stdout. Everything else it has to say goes to stderr.
//
// It builds, runs and can be graded as it is. Five parts are left for you,
// each marked "TODO(lesson 1)", in the order the lesson teaches them:
//
//  1. framing: cut the stream of bytes into lines;
//  2. parse errors: answer a line that is not JSON;
//  3. invalid requests: answer JSON that is not a request;
//  4. notifications: never answer a message that has no id;
//  5. concurrency: answer a slow wait without holding up the rest.
//
// README.md says which checks it passes as shipped and how to grade it.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// The JSON-RPC error codes of lesson 1.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// maxWaitMS is the longest wait a client may ask for, in milliseconds.
const maxWaitMS = 60000

func main() {
	s := &server{out: os.Stdout}
	logf("ready")
	chunk := make([]byte, 64*1024)
	for {
		n, err := os.Stdin.Read(chunk)
		if n > 0 {
			// TODO(lesson 1): framing.
			// One Read returns whatever bytes were waiting: half a line,
			// one line, or several lines and a bit. The starter takes it
			// for exactly one line. Keep a buffer outside this loop
			// instead: append each chunk, hand every complete line (the
			// bytes before a '\n', see bytes.IndexByte) to handleLine,
			// and keep the rest for the next chunk. When stdin closes,
			// bytes left in the buffer are a last line without a newline:
			// handle them too.
			// Fixes framing.split-message and framing.many-per-chunk.
			s.handleLine(chunk[:n])
		}
		if err != nil {
			if err != io.EOF {
				logf("reading stdin: %v", err)
			}
			break
		}
	}
	logf("stdin closed, exiting")
}

// logf writes one line to stderr. Never log to stdout: the client reads
// every stdout line as a message.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "log: "+format+"\n", args...)
}

// server answers the messages of one client.
type server struct {
	out io.Writer // stdout: answers only, one per line
}

// handleLine handles one line of input. It sends at most one answer.
func (s *server) handleLine(line []byte) {
	line = bytes.TrimSpace(line) // also drops the '\r' of a "\r\n" ending
	if len(line) == 0 {
		return // a blank line is not a message
	}

	// TODO(lesson 1): parse errors.
	// A line that is not JSON gets the same answer here as JSON that is
	// not an object: -32600, from the check below. JSON-RPC gives it a
	// code of its own: answer -32700 (Parse error) with id null, since no
	// id can be read from it. json.Valid tells whether a line is JSON, but
	// it does not check that the bytes are UTF-8; utf8.Valid does.
	// Fixes errors.parse.

	// TODO(lesson 1): invalid requests.
	// Only a line that is not a JSON object gets -32600 here. Any object
	// is taken for a request: "jsonrpc" is never looked at, a method that
	// is not a string becomes "", and any id (true, 1.5, null) is copied
	// into the answer. Answer those with -32600 too. Its id is the
	// request's id when that is a string or an integer, and null
	// otherwise. The first byte of a json.RawMessage tells its JSON type.
	// Fixes errors.invalid-request and ids.string-or-integer.
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil || msg == nil {
		logf("got a line that is not a JSON object")
		s.sendError(nil, codeInvalidRequest, "Invalid Request: a request is a JSON object")
		return
	}
	var method string
	_ = json.Unmarshal(msg["method"], &method) // left as "" when it is not a string

	// TODO(lesson 1): notifications.
	// A message without an "id" member is a notification. It never gets
	// an answer, not even an error, whatever its method. The starter
	// answers it anyway, with id null (a nil id is sent as null).
	// Fixes notifications.silent.
	id := msg["id"]
	logf("got %q (id %s)", method, id)
	s.answer(id, method, msg["params"])
}

// answer works out the answer to one request and sends it.
func (s *server) answer(id json.RawMessage, method string, params json.RawMessage) {
	switch method {
	case "ping":
		s.send(response{ID: id, Result: struct{}{}})
	case "wait":
		ms, problem := waitTime(params)
		if problem != "" {
			s.sendError(id, codeInvalidParams, "Invalid params: "+problem)
			return
		}
		// TODO(lesson 1): concurrency.
		// This sleeps before anything else is read, so a wait of 80 ms
		// holds up a ping sent after it. Sleep and answer in a goroutine
		// of its own instead, so each answer goes out when it is ready.
		// Then two goroutines may write at once: guard s.out with a
		// sync.Mutex in send. And main must not return while a wait is
		// still running, or its answer is lost: count the running waits
		// with a sync.WaitGroup and Wait for them after the read loop.
		// Fixes order.concurrent.
		time.Sleep(time.Duration(ms) * time.Millisecond)
		s.send(response{ID: id, Result: map[string]int{"waited": ms}})
	default:
		s.sendError(id, codeMethodNotFound, "Method not found: "+method)
	}
}

// waitTime reads params.ms of a wait request. When it is not a whole number
// from 0 to maxWaitMS, problem says why.
func waitTime(params json.RawMessage) (ms int, problem string) {
	var p struct {
		MS json.RawMessage `json:"ms"`
	}
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &p) != nil || p.MS == nil {
		return 0, `wait needs params {"ms": N}, and ms is missing`
	}
	if bytes.ContainsAny(p.MS, ".eE") || json.Unmarshal(p.MS, &ms) != nil {
		return 0, fmt.Sprintf("ms must be a whole number of milliseconds, not %s", p.MS)
	}
	if ms < 0 || ms > maxWaitMS {
		return 0, fmt.Sprintf("ms must be from 0 to %d, not %d", maxWaitMS, ms)
	}
	return ms, ""
}

// response is one JSON-RPC answer; exactly one of Result and Error is set.
type response struct {
	JSONRPC string          `json:"jsonrpc"` // always "2.0"; send sets it
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *errorObject    `json:"error,omitempty"`
}

type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (s *server) sendError(id json.RawMessage, code int, message string) {
	s.send(response{ID: id, Error: &errorObject{Code: code, Message: message}})
}

// send writes one answer as one line, in a single Write.
func (s *server) send(r response) {
	r.JSONRPC = "2.0"
	if r.ID == nil {
		r.ID = json.RawMessage("null")
	}
	line, err := json.Marshal(r)
	if err != nil {
		logf("encoding an answer: %v", err)
		return
	}
	if _, err := s.out.Write(append(line, '\n')); err != nil {
		logf("writing an answer: %v", err)
	}
}
