// Command student is a stdio JSON-RPC server for lesson 1, written plainly the
// way a careful student would write it. The grader's tests run it as a
// submission.
//
// With no flags it is correct. The flag -mistake NAME makes it break one rule
// on purpose, so that tests can check the grader notices:
//
//	chunk-as-line          treats each chunk read from stdin as one whole line
//	sequential             handles every request inline, so a slow wait holds up the rest
//	answers-notifications  answers a notification with error -32601 and id null
//	stringify-ids          sends every id that is not null back as a JSON string
//	banner                 prints "Server starting..." to stdout before anything else
//	no-exit                keeps running after stdin closes, until it is killed
//	crash-on-bad-json      panics (exit status 2) on the first line that is not JSON
//	hang                   logs that it is ready, then never reads, answers or exits
//	flood                  writes 1 GiB of junk to stdout, then exits
//	no-ready               answers correctly but writes nothing at all to stderr
//	crash-at-start         prints an error to stderr and exits with status 3 at once
//	seed-choices           makes seed 003's two choices: an id that is a boolean or a
//	                       fraction is answered as if it were good, and a wait echoes
//	                       whatever number ms is (-5 answers {"waited":-5} at once)
//	utf8-per-chunk         decodes each chunk as text on its own, so a character cut
//	                       across two chunks turns into U+FFFD (as JavaScript's
//	                       chunk.toString() does)
//	chunk-tail             keeps a buffer and handles every whole line of a chunk, but
//	                       takes the chunk's unfinished tail for a whole line too, so
//	                       a message cut across two chunks gets two parse errors
//	abort-on-eof           exits 0 at end of input at once, dropping the requests still
//	                       running (as the official MCP SDKs do on purpose)
//	newline-flood          writes 100,000 empty lines to stderr, then its ready line,
//	                       and 100,000 to stdout, then answers correctly
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// maxWait is the longest wait, in milliseconds, that a client may ask for.
const maxWait = 60000

var mistakes = []string{
	"chunk-as-line", "sequential", "answers-notifications", "stringify-ids",
	"banner", "no-exit", "crash-on-bad-json", "hang", "flood", "no-ready",
	"crash-at-start", "seed-choices", "utf8-per-chunk", "chunk-tail", "abort-on-eof",
	"newline-flood",
}

func main() {
	mistake := flag.String("mistake", "", "break one rule on purpose: "+strings.Join(mistakes, ", "))
	flag.Parse()
	if *mistake != "" && !known(*mistake) {
		fmt.Fprintf(os.Stderr, "student: unknown mistake %q (want one of %s)\n", *mistake, strings.Join(mistakes, ", "))
		os.Exit(64)
	}
	s := &server{out: os.Stdout, log: os.Stderr, mistake: *mistake}
	os.Exit(s.run(os.Stdin))
}

func known(name string) bool {
	for _, m := range mistakes {
		if m == name {
			return true
		}
	}
	return false
}

// server reads requests from stdin and writes one response per line to out.
type server struct {
	out     io.Writer
	log     io.Writer
	mistake string

	writeMu sync.Mutex // one response is written at a time, whole
	logMu   sync.Mutex
	pending sync.WaitGroup // requests still being answered
}

func (s *server) logf(format string, args ...any) {
	if s.mistake == "no-ready" {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.log, "log: "+format+"\n", args...)
}

func (s *server) run(in io.Reader) int {
	switch s.mistake {
	case "crash-at-start":
		fmt.Fprintln(os.Stderr, "student: cannot open config.json: no such file or directory")
		return 3
	case "banner":
		fmt.Fprintln(s.out, "Server starting...")
	case "newline-flood":
		blank := bytes.Repeat([]byte("\n"), 100_000)
		s.log.Write(blank)
		s.logf("ready")
		s.out.Write(blank)
	}
	if s.mistake != "newline-flood" {
		s.logf("ready")
	}
	switch s.mistake {
	case "hang":
		sleepForever()
	case "flood":
		return s.flood()
	}

	buf := make([]byte, 4096)
	var pending []byte // the start of a line whose newline has not come yet
	for {
		n, err := in.Read(buf)
		if n > 0 && s.mistake == "utf8-per-chunk" {
			pending = append(pending, strings.ToValidUTF8(string(buf[:n]), "\uFFFD")...)
			pending = s.handleLines(pending)
		} else if n > 0 {
			if s.mistake == "chunk-as-line" {
				s.handleLine(buf[:n])
			} else {
				pending = s.handleLines(append(pending, buf[:n]...))
				if s.mistake == "chunk-tail" && len(pending) > 0 {
					// The tail of the chunk, taken for a whole line.
					s.handleLine(pending)
					pending = nil
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logf("reading stdin: %v", err)
			}
			break
		}
	}
	if len(pending) > 0 {
		s.handleLine(pending) // the last line had no newline
	}
	if s.mistake == "abort-on-eof" {
		s.logf("stdin closed; dropping the requests still running")
		return 0
	}
	s.pending.Wait()
	s.logf("stdin closed, all answers sent")
	if s.mistake == "no-exit" {
		sleepForever()
	}
	return 0
}

// handleLines handles every complete line of pending and returns the rest.
func (s *server) handleLines(pending []byte) []byte {
	for {
		i := bytes.IndexByte(pending, '\n')
		if i < 0 {
			break
		}
		s.handleLine(pending[:i])
		pending = pending[i+1:]
	}
	// Keep the unfinished part in a fresh slice so the consumed lines can be
	// freed.
	return append([]byte(nil), pending...)
}

func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// flood writes 1 GiB of junk lines to stdout.
func (s *server) flood() int {
	junk := bytes.Repeat([]byte("junk "), 64*1024/5)
	junk = append(junk[:len(junk)-1], '\n')
	for written := 0; written < 1<<30; {
		chunk := junk
		if rest := 1<<30 - written; rest < len(chunk) {
			chunk = chunk[:rest]
		}
		n, err := s.out.Write(chunk)
		written += n
		if err != nil {
			return 1
		}
	}
	return 0
}

// request is a message with every member kept raw, so each can be checked
// for its type.
type request struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func (s *server) handleLine(line []byte) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if s.mistake == "chunk-as-line" {
		line = bytes.TrimRight(line, "\r\n")
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return // blank lines are skipped
	}
	if !utf8.Valid(line) {
		s.logf("got a line that is not valid UTF-8")
		s.sendError(nil, codeParseError, "Parse error: the line is not valid UTF-8")
		return
	}
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		s.logf("got a line that is not JSON")
		if s.mistake == "crash-on-bad-json" {
			panic(fmt.Sprintf("unmarshal request: %v", err))
		}
		s.sendError(nil, codeParseError, "Parse error: "+err.Error())
		return
	}

	var req request
	if raw[0] != '{' || json.Unmarshal(raw, &req) != nil {
		s.logf("got JSON that is not an object")
		s.sendError(nil, codeInvalidRequest, "Invalid Request: a request must be a JSON object")
		return
	}
	id, idOK := copyableID(req.ID)
	if s.mistake == "seed-choices" && req.ID != nil && !idOK && !bytes.Equal(req.ID, []byte("null")) {
		id, idOK = req.ID, true // seed 003 copies any id a JSON parse gives
	}
	var method string
	if req.Method == nil || json.Unmarshal(req.Method, &method) != nil || req.Method[0] != '"' {
		s.logf("got an object whose method is not a string")
		s.sendError(id, codeInvalidRequest, "Invalid Request: method must be a string")
		return
	}
	if string(req.JSONRPC) != `"2.0"` {
		var version string
		if json.Unmarshal(req.JSONRPC, &version) != nil || version != "2.0" {
			s.logf("got %q with a wrong jsonrpc member", method)
			s.sendError(id, codeInvalidRequest, `Invalid Request: jsonrpc must be the string "2.0"`)
			return
		}
	}
	if req.ID == nil {
		s.logf("got notification %q", method)
		if s.mistake == "answers-notifications" {
			s.sendError(nil, codeMethodNotFound, "Method not found: "+method)
		}
		return
	}
	if !idOK {
		s.logf("got %q with an id that is not a string or an integer", method)
		s.sendError(nil, codeInvalidRequest, "Invalid Request: id must be a string or an integer")
		return
	}
	s.logf("got %q (id %s)", method, id)

	s.answer(id, method, req.Params)
}

// copyableID reports whether raw is an id that can be copied into the answer:
// a string or an integer. It returns the id unchanged.
func copyableID(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	switch c := raw[0]; {
	case c == '"':
		return raw, true
	case c == '-' || c >= '0' && c <= '9':
		if bytes.ContainsAny(raw, ".eE") {
			return nil, false
		}
		return raw, true
	}
	return nil, false
}

func (s *server) answer(id json.RawMessage, method string, params json.RawMessage) {
	switch method {
	case "ping":
		s.sendResult(id, map[string]any{})
	case "wait":
		if s.mistake == "seed-choices" {
			s.seedWait(id, params)
			return
		}
		ms, problem := waitTime(params)
		if problem != "" {
			s.sendError(id, codeInvalidParams, "Invalid params: "+problem)
			return
		}
		if s.mistake == "sequential" {
			time.Sleep(time.Duration(ms) * time.Millisecond)
			s.sendResult(id, map[string]int64{"waited": ms})
			return
		}
		// The wait runs on its own so that later requests are not held up.
		s.pending.Add(1)
		go func() {
			defer s.pending.Done()
			time.Sleep(time.Duration(ms) * time.Millisecond)
			s.sendResult(id, map[string]int64{"waited": ms})
		}()
	default:
		s.sendError(id, codeMethodNotFound, "Method not found: "+method)
	}
}

// seedWait waits the way seed 003's server does: params.ms when it is a
// number (else 0), echoed as it was sent, however odd.
func (s *server) seedWait(id, params json.RawMessage) {
	var p struct {
		MS json.Number `json:"ms"`
	}
	_ = json.Unmarshal(params, &p)
	ms, err := p.MS.Float64()
	if err != nil || p.MS == "" {
		p.MS, ms = "0", 0
	}
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		time.Sleep(time.Duration(max(ms, 0) * float64(time.Millisecond)))
		s.sendResult(id, map[string]json.RawMessage{"waited": json.RawMessage(p.MS)})
	}()
}

// waitTime reads params.ms of a wait request, or says what is wrong with it.
func waitTime(params json.RawMessage) (int64, string) {
	var p struct {
		MS json.RawMessage `json:"ms"`
	}
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &p) != nil || p.MS == nil {
		return 0, `wait needs params {"ms": N}, and ms is missing`
	}
	var ms int64
	if bytes.ContainsAny(p.MS, ".eE") || json.Unmarshal(p.MS, &ms) != nil {
		return 0, fmt.Sprintf("ms must be a whole number of milliseconds, not %s", p.MS)
	}
	if ms < 0 {
		return 0, fmt.Sprintf("ms must not be negative, got %d", ms)
	}
	if ms > maxWait {
		return 0, fmt.Sprintf("ms must be at most %d, got %d", maxWait, ms)
	}
	return ms, ""
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (s *server) sendResult(id json.RawMessage, result any) {
	s.send(response{JSONRPC: "2.0", ID: id, Result: result})
}

func (s *server) sendError(id json.RawMessage, code int, message string) {
	s.send(response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: message}})
}

// send writes one response as one line in a single write.
func (s *server) send(r response) {
	if r.ID == nil {
		r.ID = json.RawMessage("null")
	} else if s.mistake == "stringify-ids" && r.ID[0] != '"' {
		quoted, _ := json.Marshal(string(r.ID))
		r.ID = quoted
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil { // Encode ends the line with '\n'
		s.logf("encoding a response: %v", err)
		return
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if _, err := s.out.Write(b.Bytes()); err != nil {
		s.logf("writing a response: %v", err)
	}
}
