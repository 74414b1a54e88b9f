// Command starter is the beginning of a lesson 1 server: a program that reads
// JSON-RPC requests from stdin, one per line, and writes one response per line
// to stdout. Logs go to stderr.
//
// It runs and it can be graded as it is, but three parts are left for you.
// Search for "TODO(lesson 1)" to find them:
//
//  1. the framing buffer (it treats every chunk it reads as one line);
//  2. Invalid Request (it calls every message it cannot decode a parse error);
//  3. concurrent waits (it waits inline, so a slow wait holds up everything).
//
// Run it:   go run .
// Grade it: lab grade -- go run -C lessons/01-reading-messages/starter .
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// JSON-RPC error codes used in lesson 1.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// maxWaitMS is the longest wait a client may ask for, in milliseconds.
const maxWaitMS = 60000

func main() {
	out := &writer{w: os.Stdout}
	logf("ready")

	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			// TODO(lesson 1): framing. Fixes framing.split-message and
			// framing.many-per-chunk.
			//
			// A chunk is whatever one Read returned. It can hold half a
			// line, exactly one line, or several lines and a half, so it
			// is not a message. Keep a buffer ([]byte) outside this loop:
			// append each chunk to it, then cut off every complete line
			// (everything up to a '\n', see bytes.IndexByte) and pass it
			// to handleLine, and keep what is left after the last '\n' for
			// the next chunk. When Read returns io.EOF and the buffer still
			// holds bytes, that is a last line with no newline: handle it
			// too. handleLine already drops a trailing '\r' and skips blank
			// lines.
			handleLine(out, buf[:n])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			logf("reading stdin: %v", err)
			break
		}
	}
	// stdin is closed. Nothing is still running here because every request
	// is answered before the next one is read (see the TODO in answer).
	logf("stdin closed, exiting")
	os.Exit(0)
}

// logf writes one log line to stderr. Only responses may go to stdout: a
// client reads every stdout line as a message.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "log: "+format+"\n", args...)
}

// request is the shape of a JSON-RPC request. ID and Params are kept raw:
// the id must go back exactly as it came (a number stays a number, a string
// stays a string), and only wait looks inside params.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // nil when the message has no id
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// handleLine handles one line of input: at most one response goes out.
func handleLine(out *writer, line []byte) {
	text := strings.TrimSpace(string(line)) // also drops a trailing "\r"
	if text == "" {
		return // blank lines are skipped
	}

	var req request
	if err := json.Unmarshal([]byte(text), &req); err != nil {
		// TODO(lesson 1): Invalid Request. Fixes errors.invalid-request.
		//
		// Right now every message that does not fit the request struct is
		// answered as a parse error, and nothing checks jsonrpc or the id.
		// Tell the cases apart:
		//   - not JSON at all, or not valid UTF-8 (json.Valid and
		//     utf8.Valid): -32700 with id null;
		//   - JSON but not a request: not an object ([1,2] or 42), jsonrpc
		//     not exactly the string "2.0", method missing or not a
		//     string, or an id that is null, a fraction, true/false, an
		//     object or an array: -32600. Copy the id into the error when
		//     it is a string or an integer; otherwise use null.
		// Hint: decode into map[string]json.RawMessage first, then look at
		// the first byte of each raw value to learn its JSON type.
		logf("got a line that is not a request")
		out.sendError(nil, codeParseError, "Parse error: "+err.Error())
		return
	}
	if req.ID == nil {
		logf("got notification %q", req.Method)
		return // a notification never gets an answer
	}
	logf("got %q (id %s)", req.Method, req.ID)
	answer(out, req)
}

// answer works out the response to one request and sends it.
func answer(out *writer, req request) {
	switch req.Method {
	case "ping":
		out.sendResult(req.ID, struct{}{})
	case "wait":
		ms, problem := waitTime(req.Params)
		if problem != "" {
			out.sendError(req.ID, codeInvalidParams, "Invalid params: "+problem)
			return
		}
		// TODO(lesson 1): concurrent waits. Fixes order.concurrent.
		//
		// This sleeps right here, so nothing else is read or answered
		// until the wait is over: a wait of 80 ms holds up a ping sent
		// after it. Run the sleep and its answer in a goroutine instead,
		// so each request is answered as soon as it is ready. The writer
		// is already safe to use from many goroutines.
		// Then keep lifecycle.exit-on-eof passing: main must not exit
		// while a wait is still running. Count running waits with a
		// sync.WaitGroup and call Wait before os.Exit.
		time.Sleep(time.Duration(ms) * time.Millisecond)
		out.sendResult(req.ID, map[string]int64{"waited": ms})
	default:
		out.sendError(req.ID, codeMethodNotFound, "Method not found: "+req.Method)
	}
}

// waitTime reads params.ms of a wait request. When ms is not usable it
// returns a sentence that says why.
func waitTime(params json.RawMessage) (int64, string) {
	var p struct {
		MS json.RawMessage `json:"ms"`
	}
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &p) != nil || p.MS == nil {
		return 0, `wait needs params {"ms": N}, and ms is missing`
	}
	var ms int64
	if strings.ContainsAny(string(p.MS), ".eE") || json.Unmarshal(p.MS, &ms) != nil {
		return 0, fmt.Sprintf("ms must be a whole number of milliseconds, not %s", p.MS)
	}
	if ms < 0 {
		return 0, fmt.Sprintf("ms must not be negative, got %d", ms)
	}
	if ms > maxWaitMS {
		return 0, fmt.Sprintf("ms must be at most %d, got %d", maxWaitMS, ms)
	}
	return ms, ""
}

// writer sends responses to stdout, one line each, in a single write, so
// that two goroutines answering at once never mix their lines.
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *errorObject    `json:"error,omitempty"`
}

type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (o *writer) sendResult(id json.RawMessage, result any) {
	o.send(response{JSONRPC: "2.0", ID: id, Result: result})
}

// sendError sends an error response. A nil id is sent as null.
func (o *writer) sendError(id json.RawMessage, code int, message string) {
	o.send(response{JSONRPC: "2.0", ID: id, Error: &errorObject{Code: code, Message: message}})
}

func (o *writer) send(r response) {
	if r.ID == nil {
		r.ID = json.RawMessage("null")
	}
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)              // keep "<" and ">" in ids as they came
	if err := enc.Encode(r); err != nil { // Encode ends the line with '\n'
		logf("encoding a response: %v", err)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.w.Write(line.Bytes()); err != nil {
		logf("writing a response: %v", err)
	}
}
