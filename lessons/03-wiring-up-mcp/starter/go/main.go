// Command mcpclient is the starter of lesson 3: an MCP client for revision
// 2026-07-28, written by hand with nothing but Go's standard library.
//
// It mounts the servers named in a configuration file, starting the stdio
// ones itself and POSTing to the Streamable HTTP ones, puts all their tools
// in one namespace (mcp__ALIAS__TOOL), and answers one JSON command per line
// on stdin with one JSON answer per line on stdout:
//
//	{"command":"list_tools"}
//	{"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"retry"}}
//
// The contract it follows is the lesson's CONTRACT.md. Five parts are left
// for you; each is marked TODO(lesson 3), in the order to do them.
//
// The file reads from the top down: the configuration, the JSON-RPC core
// shared by both transports, stdio, Streamable HTTP, the namespace that
// joins the servers, and last the command loop.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

const (
	// protocolVersion is the MCP revision this client speaks. There is no
	// handshake in 2026-07-28: every request names it in its _meta.
	protocolVersion = "2026-07-28"
	// defaultTimeout bounds a request to a server whose configuration has
	// no timeoutMs. Thirty seconds is a choice, not a rule; what matters
	// is that a server that never answers cannot hang the client.
	defaultTimeout = 30 * time.Second
	// closeGrace is how long the servers get to exit on their own, once
	// their stdin is closed, before they are killed: short, paid at every end.
	closeGrace = 500 * time.Millisecond
	// maxMessage bounds one message read from a server or from stdin, so
	// that a peer cannot make the client hold unbounded memory.
	maxMessage = 16 << 20
	// maxResultChars is the budget of one tool result, in characters.
	maxResultChars = 8000
	// maxNameLength is the longest tool name most model APIs accept.
	maxNameLength = 64
)

// logf writes a note for the person running the client. stdout carries
// the answers and nothing else, so notes go to stderr.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpclient: "+format+"\n", args...)
}

// ---------------------------------------------------------------------
// The configuration
// ---------------------------------------------------------------------

// serverConfig is one entry of the configuration: a command to start
// (stdio) or a URL to POST to (Streamable HTTP).
type serverConfig struct {
	Alias     string   // the member name: ours, not the server's
	Command   string   `json:"command"`
	Args      []string `json:"args"`
	URL       string   `json:"url"`
	TimeoutMs *float64 `json:"timeoutMs"`
}

// timeout is how long one request to this server may wait.
func (c serverConfig) timeout() time.Duration {
	if c.TimeoutMs == nil {
		return defaultTimeout
	}
	return time.Duration(*c.TimeoutMs * float64(time.Millisecond))
}

// loadConfig reads the configuration. The servers keep the file's order,
// which is the order of the tool list, so they are read one token at a
// time: a Go map would lose the order, and would also hide an alias given
// twice, which must be an error before anything starts.
func loadConfig(path string) ([]serverConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var servers []serverConfig
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key != "servers" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if err := expectDelim(dec, '{'); err != nil {
			return nil, fmt.Errorf(`"servers" must be an object from alias to server: %w`, err)
		}
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			alias := tok.(string) // inside an object, a token in key position is a string
			if seen[alias] {
				return nil, fmt.Errorf("the alias %q is used twice; each server needs its own, since it prefixes the server's tool names", alias)
			}
			seen[alias] = true
			c := serverConfig{Alias: alias}
			if err := dec.Decode(&c); err != nil {
				return nil, fmt.Errorf("server %q: %w", alias, err)
			}
			switch {
			case alias == "":
				return nil, errors.New("a server has an empty alias")
			case (c.Command == "") == (c.URL == ""):
				return nil, fmt.Errorf("server %q needs either \"command\" (stdio) or \"url\" (HTTP)", alias)
			case c.TimeoutMs != nil && *c.TimeoutMs <= 0:
				return nil, fmt.Errorf("server %q: timeoutMs must be a positive number of milliseconds", alias)
			}
			servers = append(servers, c)
		}
		if _, err := dec.Token(); err != nil { // the closing brace of "servers"
			return nil, err
		}
	}
	if len(servers) == 0 {
		return nil, errors.New(`no servers: the configuration needs {"servers": {ALIAS: {...}}}`)
	}
	return servers, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("expected %v, found %v", want, tok)
	}
	return nil
}

// ---------------------------------------------------------------------
// The JSON-RPC core
// ---------------------------------------------------------------------

// message is any JSON-RPC message a server sends: a response (id and
// result or error) or a notification (method, no id).
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// isNotification reports whether m has no id: then it answers nothing.
func (m *message) isNotification() bool { return len(m.ID) == 0 && m.Method != "" }

// answers reports whether m is the response to the request with id.
func (m *message) answers(id int64) bool {
	return m.Method == "" && string(bytes.TrimSpace(m.ID)) == strconv.FormatInt(id, 10)
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("the server answered with error %d: %s", e.Code, e.Message)
}

// request is what the client sends. params always holds _meta.
type request struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      int64          `json:"id"`
	Method  string         `json:"method"`
	Params  map[string]any `json:"params"`
}

// transport carries one request to a server and brings back its response.
// The connection numbers the requests; the transport finds the answer.
type transport interface {
	// roundTrip sends body, the request with the given id, and waits for
	// the response until ctx ends. name is the tool name of a tools/call,
	// which HTTP repeats in a header; "" for other methods.
	roundTrip(ctx context.Context, id int64, method, name string, body []byte) (*message, error)
	// closeInput tells the server the client is done (stdio: closes its
	// stdin); finish then waits for it until deadline, and ends it.
	closeInput()
	finish(deadline time.Time)
}

// connection is the client's side of one server: it numbers the requests
// and puts _meta in each.
type connection struct {
	timeout time.Duration
	t       transport
	mu      sync.Mutex
	nextID  int64
}

// call sends method with params (which may be nil) and returns the
// result, or an error saying why there is none.
func (c *connection) call(method string, params map[string]any) (json.RawMessage, error) {
	// Numbering: the next integer of this connection. Ids only have to be
	// unique among the requests still open here, so a counter does it.
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()

	if params == nil {
		params = map[string]any{}
	}
	// _meta goes inside params, on every request: the protocol is
	// stateless, so each request says again which revision it speaks and
	// what the client can do (nothing extra: an empty object).
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    protocolVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "lesson3-starter-go", "version": "0.1.0"},
	}
	name := ""
	if method == "tools/call" {
		// Ask for progress reports, with the request's own id as the token:
		// a slow tool can then say how it is doing (and a server may only
		// send progress when asked).
		meta["progressToken"] = id
		name, _ = params["name"].(string)
	}
	params["_meta"] = meta
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}

	// Every request gets a deadline.
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	m, err := c.t.roundTrip(ctx, id, method, name, body)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s (id %d) got no answer within %v", method, id, c.timeout)
		}
		return nil, fmt.Errorf("%s (id %d): %w", method, id, err)
	}
	if m.Error != nil {
		return nil, fmt.Errorf("%s (id %d): %w", method, id, m.Error)
	}
	if len(m.Result) == 0 {
		// A response carries either a result or an error. One with neither is read
		// as an empty result, as many clients do.
		return json.RawMessage(`{}`), nil
	}
	return m.Result, nil
}

// ---------------------------------------------------------------------
// stdio: a child process, one message per line
// ---------------------------------------------------------------------

// stdioTransport speaks to a server the client started: requests go to
// its stdin, answers come from its stdout, and its stderr is its log.
type stdioTransport struct {
	alias    string
	cmd      *exec.Cmd
	stdin    *os.File
	exited   chan struct{} // closed once the process has ended
	exit     error         // how it ended; read after exited is closed
	logsDone chan struct{} // closed once its stderr has ended

	writeMu sync.Mutex // one line at a time on stdin
	mu      sync.Mutex
	pending map[int64]chan *message // the requests waiting for an answer
	gone    error                   // why the server is gone; nil while it runs
}

// startStdio starts the server. A command that cannot start fails here,
// at once, not when the first request times out.
func startStdio(alias, command string, args []string) (*stdioTransport, error) {
	// Pipes of our own, rather than cmd.StdoutPipe: Wait would close those
	// while we may still be reading, and our stdin end takes a write
	// deadline.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(command, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	// The child has its own copies of these ends now (or never will).
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("could not start %s: %w", command, err)
	}
	t := &stdioTransport{alias: alias, cmd: cmd, stdin: inW, exited: make(chan struct{}), logsDone: make(chan struct{}), pending: map[int64]chan *message{}}
	go func() {
		t.exit = cmd.Wait()
		close(t.exited)
	}()
	go t.readLogs(errR)
	go t.readMessages(outR)
	return t, nil
}

// readLogs passes the server's stderr on to ours, a line at a time, marked
// with the server's alias. A server's logs never go to stdout, where they
// would break the protocol stream.
func (t *stdioTransport) readLogs(r io.ReadCloser) {
	defer close(t.logsDone)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		fmt.Fprintf(os.Stderr, "[%s] %s\n", t.alias, sc.Text())
	}
	io.Copy(io.Discard, r) // a line too long to show: keep draining
}

// readMessages reads the server's stdout until it ends, handing every
// message to the request that waits for it.
//
// bufio.Scanner would find the lines for us; here we read the raw bytes,
// to see what a read really returns.
func (t *stdioTransport) readMessages(r io.ReadCloser) {
	defer r.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			// TODO(lesson 3), part 2: framing.
			// A read hands over the bytes the pipe holds at that moment, not a
			// message: it may stop inside one and start with the rest of the one
			// before. This splits each read on its own and drops the pieces that
			// do not parse, so a long answer, which the notes server writes in
			// 4 KiB pieces, is lost every time. Keep the bytes after the last
			// newline and put them in front of the next read; hand on only lines
			// that ended in a newline (and at the end of the stream, what is
			// left). Fixes framing and truncation.
			for _, piece := range bytes.Split(buf[:n], []byte("\n")) {
				t.handleLine(piece)
			}
		}
		if err != nil {
			break
		}
	}
	t.serverGone()
}

// handleLine reads one line from the server. A line that is not a message
// is noted and skipped: one stray line must not end the connection.
func (t *stdioTransport) handleLine(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		logf("%s: skipped %d bytes that are not a JSON message: %.60q", t.alias, len(line), line)
		return
	}
	// Correlation: only a message that carries an id can answer a
	// request. One without is a notification, whatever else it holds.
	if m.isNotification() {
		logf("%s: notification %s", t.alias, m.Method)
		return
	}
	if m.Method != "" {
		logf("%s: skipped a request (%s): a 2026-07-28 server sends none", t.alias, m.Method)
		return
	}
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	t.mu.Lock()
	ch, ok := t.pending[id]
	delete(t.pending, id)
	t.mu.Unlock()
	if err != nil || !ok {
		// Too late (its request timed out) or never asked for: drop it.
		logf("%s: dropped a response with id %s: no request is waiting for it", t.alias, m.ID)
		return
	}
	ch <- &m // buffered: never blocks
}

// serverGone runs when stdout ends. Every request still waiting fails now,
// with the reason: no answer can come, so none should sit until its
// deadline.
func (t *stdioTransport) serverGone() {
	// Wait a moment for the exit status and the last lines of stderr: they
	// say why the server is gone.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	reason := "the server closed its stdout"
	select {
	case <-t.exited:
		reason = fmt.Sprintf("the server exited (%v)", t.exit)
	case <-ctx.Done():
	}
	select {
	case <-t.logsDone:
	case <-ctx.Done():
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gone = errors.New(reason)
	for id, ch := range t.pending {
		close(ch) // a closed channel tells the waiter to read t.gone
		delete(t.pending, id)
	}
}

func (t *stdioTransport) roundTrip(ctx context.Context, id int64, method, _ string, body []byte) (*message, error) {
	ch := make(chan *message, 1)
	t.mu.Lock()
	if t.gone != nil {
		t.mu.Unlock()
		return nil, t.gone
	}
	t.pending[id] = ch
	t.mu.Unlock()

	if err := t.writeLine(ctx, body); err != nil {
		// Most often the server has exited, and the reader, seeing the end
		// of its stdout, fails this request with the reason in a moment.
		select {
		case _, ok := <-ch:
			if !ok {
				return nil, t.goneError()
			}
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
		t.forget(id)
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, t.goneError()
		}
		return m, nil
	case <-ctx.Done():
		// Stop waiting, and tell the server it may stop working on it. An
		// answer that still comes finds no one waiting and is dropped.
		t.forget(id)
		cancel, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"method":  "notifications/cancelled",
			"params":  map[string]any{"requestId": id, "reason": "the client timed out"},
		})
		bg, stop := context.WithTimeout(context.Background(), time.Second)
		defer stop()
		t.writeLine(bg, cancel)
		return nil, ctx.Err()
	}
}

// goneError says why the server is gone.
func (t *stdioTransport) goneError() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gone
}

func (t *stdioTransport) forget(id int64) {
	t.mu.Lock()
	delete(t.pending, id)
	t.mu.Unlock()
}

// writeLine writes one message and its newline to the server's stdin. A
// server that stops reading cannot block us past the request's deadline.
func (t *stdioTransport) writeLine(ctx context.Context, body []byte) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		t.stdin.SetWriteDeadline(dl)
	}
	if _, err := t.stdin.Write(append(body, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return context.DeadlineExceeded
		}
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

func (t *stdioTransport) closeInput() {
	t.writeMu.Lock()
	t.stdin.Close()
	t.writeMu.Unlock()
}

// finish waits for the server to exit until deadline, then kills it.
// Nothing ends it for us when this program exits: a server we started
// and forgot keeps running.
func (t *stdioTransport) finish(deadline time.Time) {
	select {
	case <-t.exited:
	case <-time.After(time.Until(deadline)):
		logf("%s: still running after its stdin closed; killing it", t.alias)
		t.cmd.Process.Kill()
		<-t.exited
	}
}

// ---------------------------------------------------------------------
// Streamable HTTP: one POST per request
// ---------------------------------------------------------------------

// httpTransport POSTs every request to one endpoint. Each POST has an
// answer of its own, whose end HTTP marks, so no lines need finding; the
// answer is one JSON message, or an event stream with the response in it.
type httpTransport struct {
	url    string
	client *http.Client
}

// headerValue is how a value goes in Mcp-Name: as it is when it is plain
// visible ASCII, else (and also when it merely looks like the sentinel)
// as =?base64?...?= around the Base64 of its UTF-8 bytes. Header values
// cannot hold other characters.
func headerValue(v string) string {
	plain := !strings.HasPrefix(v, " ") && !strings.HasSuffix(v, " ") &&
		!(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; i < len(v) && plain; i++ {
		plain = v[i] >= 0x20 && v[i] <= 0x7e
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

func (t *httpTransport) roundTrip(ctx context.Context, id int64, method, name string, body []byte) (*message, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// Three headers repeat the body, so that a proxy can route without
	// reading it. The server checks that they agree with the body.
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	req.Header.Set("Mcp-Method", method)
	if method == "tools/call" {
		req.Header.Set("Mcp-Name", headerValue(name))
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return nil, err
	}
	// Closing the body before the end also cancels the request on the
	// server's side: on HTTP, that is how a client gives up.
	defer resp.Body.Close()
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		// One message. An error (a 400 for headers that do not match the
		// body, say) comes this way too, with its JSON-RPC error inside.
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage+1))
		if err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		var m message
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("the answer (%s) is not a JSON-RPC message: %v", resp.Status, err)
		}
		if m.Error != nil || m.answers(id) {
			return &m, nil
		}
		return nil, fmt.Errorf("the answer (%s) is not the response to request %d", resp.Status, id)
	case "text/event-stream":
		return readEventStream(t.url, resp.Body, id)
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	return nil, fmt.Errorf("the server answered %s with Content-Type %q: %s", resp.Status, resp.Header.Get("Content-Type"), bytes.TrimSpace(snippet))
}

// readEventStream reads an event stream until it holds the response to
// request id. Each event is a few "field: value" lines and a blank line;
// its data lines, joined, are one JSON-RPC message.
func readEventStream(from string, body io.Reader, id int64) (*message, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 4096), maxMessage)
	var data []string
	notifications := 0
	for sc.Scan() {
		line := sc.Text()
		if line != "" {
			field, value, _ := strings.Cut(line, ":")
			if field == "data" {
				data = append(data, strings.TrimPrefix(value, " "))
			}
			continue // other fields (event, id, retry) and comments do not matter here
		}
		if len(data) == 0 {
			continue
		}
		var m message
		err := json.Unmarshal([]byte(strings.Join(data, "\n")), &m)
		data = nil
		if err != nil {
			logf("%s: skipped an event that is not a JSON message: %v", from, err)
			continue
		}
		// TODO(lesson 3), part 4: response by id.
		// An event stream may carry notifications before the response (the
		// ticket system sends progress first) and after it. This takes the
		// first message as the response. Take the message whose id is the
		// request's; count a message without an id as a notification and
		// read on. Fixes response-by-id.
		return &m, nil
	}
	// The stream is over and the response never came: the request failed,
	// and we say so now, not when its deadline passes.
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("the event stream broke before the response to request %d, after %d notification(s): %w", id, notifications, err)
	}
	return nil, fmt.Errorf("the event stream ended before the response to request %d, after %d notification(s)", id, notifications)
}

// HTTP holds no process: there is nothing to close or wait for.
func (t *httpTransport) closeInput()        { t.client.CloseIdleConnections() }
func (t *httpTransport) finish(_ time.Time) {}

// ---------------------------------------------------------------------
// The namespace: several servers, one list of tools
// ---------------------------------------------------------------------

// remoteTool is a tool as a server's tools/list describes it.
type remoteTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations *struct {
		ReadOnlyHint *bool `json:"readOnlyHint"`
	} `json:"annotations"`
}

// tool is one entry of the namespace, as the model sees it, and what the
// client needs to call it.
type tool struct {
	Name          string          `json:"name"` // mcp__alias__tool
	Description   string          `json:"description"`
	NeedsApproval bool            `json:"needsApproval"`
	InputSchema   json.RawMessage `json:"inputSchema,omitempty"`
	server        *server         // where it lives
	original      string          // its name on that server
}

// server is one configured server and how mounting it went.
type server struct {
	config serverConfig
	conn   *connection // nil when it could not be reached
	err    error       // why it is missing
	tools  []remoteTool
}

// host is every server and the namespace built from them.
type host struct {
	servers []*server
	tools   []*tool
	byName  map[string]*tool // the only way back from a name to its tool
}

// mount connects to every server at once, each inside its own failure
// boundary: a server that cannot start, cannot be reached or answers
// nonsense costs its own tools and no one else's.
func mount(configs []serverConfig) *host {
	h := &host{byName: map[string]*tool{}}
	var wg sync.WaitGroup
	for _, c := range configs {
		s := &server{config: c}
		h.servers = append(h.servers, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					s.err = fmt.Errorf("the client failed while mounting it: %v", p)
				}
				if s.err != nil && s.conn != nil {
					s.conn.t.closeInput()
					s.conn.t.finish(time.Now().Add(closeGrace))
					s.conn = nil
				}
			}()
			s.conn, s.err = connect(c)
			if s.err == nil {
				s.tools, s.err = s.conn.listTools()
			}
		}()
	}
	wg.Wait()
	// The namespace follows the configuration's order, then each server's.
	for _, s := range h.servers {
		if s.err != nil {
			logf("server %s is unavailable, so its tools are missing: %v", s.config.Alias, s.err)
			continue
		}
		for _, rt := range s.tools {
			h.add(s, rt)
		}
	}
	return h
}

// connect opens the transport a server's configuration asks for.
func connect(c serverConfig) (*connection, error) {
	conn := &connection{timeout: c.timeout()}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("%q is not an http:// or https:// URL", c.URL)
		}
		conn.t = &httpTransport{url: c.URL, client: &http.Client{}}
		return conn, nil
	}
	t, err := startStdio(c.Alias, c.Command, c.Args)
	if err != nil {
		return nil, err
	}
	conn.t = t
	return conn, nil
}

// listTools asks the server for its tools.
func (c *connection) listTools() ([]remoteTool, error) {
	result, err := c.call("tools/list", nil)
	if err != nil {
		return nil, err
	}
	var page struct {
		Tools      []remoteTool    `json:"tools"`
		NextCursor json.RawMessage `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &page); err != nil {
		return nil, fmt.Errorf("tools/list: the result is not a list of tools: %w", err)
	}
	// TODO(lesson 3), part 3: pagination.
	// tools/list answers one page. When the result has a nextCursor, there
	// is more: send tools/list again with params.cursor set to it, exactly
	// as received, and repeat until a page has no nextCursor. A short page
	// proves nothing. Fixes pagination (the notes server lists three tools,
	// two to a page).
	return page.Tools, nil
}

// namespacedName is the name a model sees for tool of the server mounted
// as alias: mcp__alias__tool, with every character other than a letter,
// a digit, "_" or "-" made "_", and, when that is too long, cut to 57
// characters plus "_" and six hex digits of a hash, so that two long
// names that begin alike stay apart.
func namespacedName(alias, toolName string) string {
	raw := sanitize("mcp__" + alias + "__" + toolName)
	if len(raw) <= maxNameLength {
		return raw
	}
	return hashedName(alias, toolName)
}

// sanitize replaces each character that is not allowed by one "_".
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s { // one rune, one character, however many bytes
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// hashedName is the sanitized name cut to at most 57 characters, then "_"
// and the first six hex digits of the SHA-1 of alias::tool.
func hashedName(alias, toolName string) string {
	raw := sanitize("mcp__" + alias + "__" + toolName)
	sum := sha1.Sum([]byte(alias + "::" + toolName))
	return raw[:min(len(raw), maxNameLength-7)] + "_" + hex.EncodeToString(sum[:])[:6]
}

// add puts one tool in the namespace.
func (h *host) add(s *server, rt remoteTool) {
	alias := s.config.Alias
	name := namespacedName(alias, rt.Name)
	if h.byName[name] != nil {
		// Two tools became one name (créer_ticket and créer.ticket, say):
		// the later one takes the hashed form.
		name = hashedName(alias, rt.Name)
	}
	if other := h.byName[name]; other != nil {
		logf("tool %q of server %s is left out: its name %s is taken by tool %q of server %s", rt.Name, alias, name, other.original, other.server.config.Alias)
		return
	}
	// A model picks among tools by reading their descriptions, so each one
	// names its tool and its server.
	desc := strings.TrimSpace(rt.Description)
	source := fmt.Sprintf("(Tool %q of MCP server %q.)", rt.Name, alias)
	if desc == "" {
		desc = source
	} else {
		desc += " " + source
	}
	// TODO(lesson 3), part 5: annotations.
	// readOnlyHint is the server's claim about its own tool, and a server
	// you do not control can claim anything. This trusts it and lets
	// "read-only" tools skip approval. Every remote tool needs approval:
	// set needsApproval to true whatever the annotations say. Fixes
	// annotations.
	needsApproval := true
	if rt.Annotations != nil && rt.Annotations.ReadOnlyHint != nil && *rt.Annotations.ReadOnlyHint {
		needsApproval = false
	}
	t := &tool{Name: name, Description: desc, NeedsApproval: needsApproval, InputSchema: rt.InputSchema, server: s, original: rt.Name}
	h.byName[name] = t
	h.tools = append(h.tools, t)
}

// callAnswer is the answer to call_tool.
type callAnswer struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// call runs the tool a model names. It never fails: whatever goes wrong
// becomes a failed result that says what happened, so the model can try
// something else.
func (h *host) call(name string, arguments json.RawMessage) callAnswer {
	t, ok := h.byName[name] // through the table, never by taking the name apart
	if !ok {
		text := fmt.Sprintf("No tool is named %q.", name)
		for _, s := range h.servers {
			if s.err != nil {
				text += fmt.Sprintf(" Server %s is unavailable, so its tools are missing (%v).", s.config.Alias, s.err)
			}
		}
		return callAnswer{Text: text, IsError: true}
	}
	// TODO(lesson 3), part 1: the original name.
	// This sends the server the namespaced name (mcp__notes__search).
	// That name is ours, made for the model's list: the server listed the
	// tool as search, knows it by no other name, and answers that the
	// tool does not exist. Send the tool's own name, kept in the table
	// entry. Fixes original-name, two-searches, isolation, stream-break
	// and timeout-teardown.
	params := map[string]any{"name": t.Name}
	if len(arguments) > 0 {
		params["arguments"] = arguments
	}
	result, err := t.server.conn.call("tools/call", params)
	if err != nil {
		return callAnswer{Text: fmt.Sprintf("Calling tool %q of server %s failed: %v", t.original, t.server.config.Alias, err), IsError: true}
	}
	var r struct {
		ResultType string `json:"resultType"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return callAnswer{Text: fmt.Sprintf("Tool %q of server %s gave a result that is not a tool result: %v", t.original, t.server.config.Alias, err), IsError: true}
	}
	if r.ResultType != "" && r.ResultType != "complete" {
		// "input_required" means the server needs more from us before it can
		// finish. This client cannot supply it, and passing a half-done result
		// on as a finished one would mislead the model.
		return callAnswer{Text: fmt.Sprintf("Tool %q of server %s did not finish: its result is of type %q, which this client cannot continue.", t.original, t.server.config.Alias, r.ResultType), IsError: true}
	}
	var texts []string
	for _, block := range r.Content {
		if block.Type == "text" {
			texts = append(texts, block.Text)
		}
	}
	return callAnswer{Text: truncate(strings.Join(texts, "\n")), IsError: r.IsError}
}

// truncate keeps a result within the budget that every tool, remote or
// local, shares, and says how much it cut. Characters are counted as
// Unicode code points, and a cut never falls inside one.
func truncate(text string) string {
	n := utf8.RuneCountInString(text)
	if n <= maxResultChars {
		return text
	}
	end := 0
	for i := 0; i < maxResultChars; i++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	return text[:end] + fmt.Sprintf("\n\n[%d more characters were cut from this result.]", n-maxResultChars)
}

// close ends every server: first all stdins close, then each server has
// until the same deadline to exit before it is killed.
func (h *host) close() {
	deadline := time.Now().Add(closeGrace)
	for _, s := range h.servers {
		if s.conn != nil {
			s.conn.t.closeInput()
		}
	}
	for _, s := range h.servers {
		if s.conn != nil {
			s.conn.t.finish(deadline)
		}
	}
}

// ---------------------------------------------------------------------
// The commands
// ---------------------------------------------------------------------

type toolsAnswer struct {
	Tools         []*tool        `json:"tools"`
	FailedServers []failedServer `json:"failedServers"`
}

type failedServer struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

type errorAnswer struct {
	Error string `json:"error"`
}

// run answers one command line.
func (h *host) run(line []byte) any {
	var cmd struct {
		Command   string          `json:"command"`
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(line, &cmd); err != nil {
		return errorAnswer{"the line is not a JSON object with a command: " + err.Error()}
	}
	switch cmd.Command {
	case "list_tools":
		ans := toolsAnswer{Tools: h.tools, FailedServers: []failedServer{}}
		if ans.Tools == nil {
			ans.Tools = []*tool{}
		}
		for _, s := range h.servers {
			if s.err != nil {
				ans.FailedServers = append(ans.FailedServers, failedServer{s.config.Alias, s.err.Error()})
			}
		}
		return ans
	case "call_tool":
		var name string
		if err := json.Unmarshal(cmd.Name, &name); err != nil {
			return errorAnswer{`call_tool needs "name", the tool's namespaced name as a string`}
		}
		args := bytes.TrimSpace(cmd.Arguments)
		if string(args) == "null" {
			args = nil
		}
		if len(args) > 0 && args[0] != '{' {
			return errorAnswer{`"arguments" must be a JSON object`}
		}
		return h.call(name, args)
	case "":
		return errorAnswer{`the command has no "command"; use "list_tools" or "call_tool"`}
	}
	return errorAnswer{fmt.Sprintf("unknown command %q; use \"list_tools\" or \"call_tool\"", cmd.Command)}
}

// readLine reads one line of stdin without its newline. A line longer
// than maxMessage is skipped whole and reported as errTooLong, so that one
// huge line cannot take all the memory.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxMessage {
			for errors.Is(err, bufio.ErrBufferFull) { // skip to the line's end
				_, err = r.ReadSlice('\n')
			}
			return nil, errTooLong
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // the line goes on
		}
		if err != nil && len(line) == 0 {
			return nil, err // io.EOF: stdin is over
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

var errTooLong = fmt.Errorf("the command is longer than %d bytes", maxMessage)

func main() {
	configPath := flag.String("config", "servers.json", "the servers to mount, as a JSON file")
	flag.Parse()
	configs, err := loadConfig(*configPath)
	if err != nil {
		logf("the configuration %s: %v", *configPath, err)
		os.Exit(2)
	}
	h := mount(configs)

	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out) // one compact JSON value and "\n" per answer
	enc.SetEscapeHTML(false)
	for {
		line, err := readLine(in)
		if errors.Is(err, io.EOF) {
			break
		}
		var answer any
		switch {
		case errors.Is(err, errTooLong):
			answer = errorAnswer{err.Error()}
		case err != nil:
			logf("reading stdin: %v", err)
			h.close()
			os.Exit(1)
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			answer = h.run(line)
		}
		if err := enc.Encode(answer); err != nil {
			logf("encoding an answer: %v", err)
		}
		out.Flush()
	}
	// stdin is over: close every server, then leave.
	h.close()
}
