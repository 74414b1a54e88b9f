// Command student is a test MCP client for lesson 3's grader: a correct
// client that, with -mistake NAME, makes one mistake a student makes, so
// the grader's tests can assert which checks fail for it and which do not.
// It follows lessons/03-wiring-up-mcp/CONTRACT.md.
//
//	student [-mistake NAME] --config PATH
package main

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The mistakes, each aimed at one check.
var mistakes = map[string]string{
	"split-lines":    "framing: parses each read on its own, split on newlines",
	"first-page":     "pagination: takes the first page of tools/list only",
	"first-event":    "response-by-id: takes an event stream's first message as the response",
	"trust-readonly": "annotations: lets readOnlyHint waive the approval",
	"namespaced":     "original-name: sends the namespaced name to the server",
	"meta-also-top":  "meta-in-params: writes _meta beside params as well",
	"same-id":        "ids: numbers every request 1 and never cancels",
	"raw-name":       "http-headers: sends a non-ASCII tool name raw in Mcp-Name",
	"long-timeout":   "timeout-teardown: ignores timeoutMs and waits 30 s",
	"no-kill":        "timeout-teardown: closes stdin at the end but never kills",
	"no-truncate":    "truncation: returns results whole",
	"hash-tool-only": "namespacing: hashes the tool's name without the alias",
	"die-on-down":    "isolation: exits when a server cannot be reached",
	"wait-on-break":  "stream-break: waits out the timeout when a stream breaks",
	"no-progress":    "response-by-id: asks for no progress",
	"table-by-tool":  "two-searches: finds a tool by its original name, so the last search wins",
}

var mistake string

// loaded makes the client act as it would on a machine too loaded for the
// first run's deadlines, with no mistake of its own: while a stdio
// server's timeoutMs is under 10 s (the lesson's deadlines at time scale
// 1), its first tools/list to that server is given up at once, cancelled
// as a timeout is; at the larger time scale of a rerun the client waits
// as it should.
var loaded bool

func main() {
	flag.StringVar(&mistake, "mistake", "", "the one mistake to make")
	flag.BoolVar(&loaded, "loaded", false, "give up at once on the first tools/list to each stdio server while its timeoutMs is under 10 s, as on a machine too loaded for time scale 1")
	config := flag.String("config", "", "the servers")
	flag.Parse()
	if _, ok := mistakes[mistake]; mistake != "" && !ok {
		fmt.Fprintf(os.Stderr, "unknown mistake %q\n", mistake)
		os.Exit(2)
	}
	servers, err := readConfig(*config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "student:", err)
		os.Exit(2)
	}
	h := &host{servers: servers}
	h.discover()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var cmd struct {
			Command   string          `json:"command"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		var out any
		if json.Unmarshal(in.Bytes(), &cmd) != nil {
			out = map[string]string{"error": "not a JSON object"}
		} else {
			switch cmd.Command {
			case "list_tools":
				out = h.listAnswer()
			case "call_tool":
				out = h.call(cmd.Name, cmd.Arguments)
			default:
				out = map[string]string{"error": "unknown command " + cmd.Command}
			}
		}
		b, _ := json.Marshal(out)
		os.Stdout.Write(append(b, '\n'))
	}
	h.close()
}

type serverConfig struct {
	alias, command, url string
	args                []string
	timeout             time.Duration
	declared            time.Duration // the timeoutMs of the configuration
}

// readConfig keeps the servers in the file's order.
func readConfig(path string) ([]*server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var top struct {
		Servers json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(top.Servers))
	dec.Token()
	var out []*server
	for dec.More() {
		tok, _ := dec.Token()
		var e struct {
			Command   string   `json:"command"`
			Args      []string `json:"args"`
			URL       string   `json:"url"`
			TimeoutMs int      `json:"timeoutMs"`
		}
		if err := dec.Decode(&e); err != nil {
			return nil, err
		}
		c := serverConfig{alias: tok.(string), command: e.Command, args: e.Args, url: e.URL, timeout: 10 * time.Second, declared: time.Duration(e.TimeoutMs) * time.Millisecond}
		if e.TimeoutMs > 0 && mistake != "long-timeout" {
			c.timeout = time.Duration(e.TimeoutMs) * time.Millisecond
		}
		if mistake == "long-timeout" {
			c.timeout = 30 * time.Second
		}
		out = append(out, &server{cfg: c})
	}
	return out, nil
}

type tool struct {
	name, original, description string
	server                      *server
	readOnly                    bool
}

type host struct {
	servers []*server
	tools   []*tool
	table   map[string]*tool
	failed  []map[string]string
}

func (h *host) discover() {
	h.table = map[string]*tool{}
	for _, s := range h.servers {
		if err := s.start(); err != nil {
			h.fail(s, err)
			continue
		}
		tools, err := s.listTools()
		if err != nil {
			h.fail(s, err)
			continue
		}
		for _, t := range tools {
			t.name = namespaced(s.cfg.alias, t.original)
			if h.table[t.name] != nil {
				t.name = shortened(t.name, s.cfg.alias, t.original)
			}
			h.table[t.name] = t
			h.tools = append(h.tools, t)
		}
	}
}

func (h *host) fail(s *server, err error) {
	if mistake == "die-on-down" {
		fmt.Fprintf(os.Stderr, "student: %s: %v\n", s.cfg.alias, err)
		os.Exit(1)
	}
	h.failed = append(h.failed, map[string]string{"server": s.cfg.alias, "error": err.Error()})
}

func (h *host) listAnswer() any {
	type entry struct {
		Name          string `json:"name"`
		Description   string `json:"description"`
		NeedsApproval bool   `json:"needsApproval"`
	}
	tools := []entry{}
	for _, t := range h.tools {
		needs := true
		if mistake == "trust-readonly" && t.readOnly {
			needs = false
		}
		tools = append(tools, entry{t.name, t.description, needs})
	}
	failed := h.failed
	if failed == nil {
		failed = []map[string]string{}
	}
	return map[string]any{"tools": tools, "failedServers": failed}
}

func (h *host) call(name string, args json.RawMessage) any {
	t := h.table[name]
	if t != nil && mistake == "table-by-tool" {
		for _, u := range h.tools {
			if u.original == t.original {
				t = u // the last server's tool of that name wins
			}
		}
	}
	if t == nil {
		return map[string]any{"text": "no tool is named " + name, "isError": true}
	}
	send := t.original
	if mistake == "namespaced" {
		send = t.name
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	params := map[string]any{"name": send, "arguments": args}
	res, err := t.server.request("tools/call", params)
	if err != nil {
		return map[string]any{"text": err.Error(), "isError": true}
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	json.Unmarshal(res, &r)
	var texts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			texts = append(texts, c.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if n := utf8.RuneCountInString(text); n > 8000 && mistake != "no-truncate" {
		text = string([]rune(text)[:8000]) + fmt.Sprintf("\n\n[%d more characters were cut from this result.]", n-8000)
	}
	return map[string]any{"text": text, "isError": r.IsError}
}

func (h *host) close() {
	for _, s := range h.servers {
		s.stop()
	}
}

func namespaced(alias, tool string) string {
	var b strings.Builder
	for _, r := range "mcp__" + alias + "__" + tool {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() > 64 {
		return shortened(b.String(), alias, tool)
	}
	return b.String()
}

func shortened(name, alias, tool string) string {
	key := alias + "::" + tool
	if mistake == "hash-tool-only" {
		key = tool
	}
	sum := sha1.Sum([]byte(key))
	return name[:min(len(name), 57)] + "_" + hex.EncodeToString(sum[:])[:6]
}

// server is one connection, stdio or HTTP.
type server struct {
	cfg serverConfig

	// stdio
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	mu      sync.Mutex
	nextID  int
	pending map[int]chan reply
	dead    error
	gaveUp  bool // under -loaded, once the first tools/list was given up

	// http
	httpc *http.Client
}

type reply struct {
	result json.RawMessage
	err    error
}

// response is a JSON-RPC response as both transports read it: a line of a
// stdio server, or one message of an HTTP answer.
type response struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// outcome is the response's result, or its error member as a Go error.
func (r *response) outcome() (json.RawMessage, error) {
	if r.Error != nil {
		return nil, fmt.Errorf("error %d: %s", r.Error.Code, r.Error.Message)
	}
	return r.Result, nil
}

func (s *server) start() error {
	if s.cfg.url != "" {
		s.httpc = &http.Client{}
		return nil
	}
	s.cmd = exec.Command(s.cfg.command, s.cfg.args...)
	s.cmd.Stderr = os.Stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return err
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.pending = map[int]chan reply{}
	go s.read(out)
	return nil
}

// read takes whole lines from the server and hands each response to the
// request waiting for it.
func (s *server) read(out io.Reader) {
	handle := func(line []byte) {
		var m response
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			return
		}
		var r reply
		r.result, r.err = m.outcome()
		s.mu.Lock()
		ch := s.pending[*m.ID]
		delete(s.pending, *m.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	buf := make([]byte, 64<<10)
	var rest []byte
	for {
		n, err := out.Read(buf)
		if mistake == "split-lines" {
			for _, piece := range bytes.Split(buf[:n], []byte("\n")) {
				handle(piece)
			}
		} else {
			rest = append(rest, buf[:n]...)
			for {
				i := bytes.IndexByte(rest, '\n')
				if i < 0 {
					break
				}
				handle(rest[:i])
				rest = rest[i+1:]
			}
		}
		if err != nil {
			s.mu.Lock()
			s.dead = errors.New("the server's output ended")
			for id, ch := range s.pending {
				ch <- reply{err: s.dead}
				delete(s.pending, id)
			}
			s.mu.Unlock()
			return
		}
	}
}

func (s *server) stop() {
	if s.cmd == nil {
		return
	}
	s.stdin.Close()
	if mistake == "no-kill" {
		return
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(200 * time.Millisecond):
		s.cmd.Process.Kill()
		<-done
	}
}

func (s *server) id() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	if mistake == "same-id" {
		return 1
	}
	return s.nextID
}

func (s *server) message(id int, method string, params map[string]any) []byte {
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	if method == "tools/call" && mistake != "no-progress" {
		meta["progressToken"] = id
	}
	params["_meta"] = meta
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}
	if mistake == "meta-also-top" {
		msg["_meta"] = meta
	}
	b, _ := json.Marshal(msg)
	return b
}

func (s *server) request(method string, params map[string]any) (json.RawMessage, error) {
	id := s.id()
	body := s.message(id, method, params)
	if s.httpc != nil {
		return s.post(id, method, params, body)
	}
	ch := make(chan reply, 1)
	s.mu.Lock()
	if s.dead != nil {
		s.mu.Unlock()
		return nil, s.dead
	}
	s.pending[id] = ch
	s.mu.Unlock()
	if _, err := s.stdin.Write(append(body, '\n')); err != nil {
		return nil, err
	}
	wait := time.After(s.cfg.timeout)
	if loaded && method == "tools/list" && s.cfg.declared < 10*time.Second && !s.gaveUp {
		s.gaveUp = true
		now := make(chan time.Time)
		close(now)
		wait = now
		ch = nil // the answer is not waited for: it comes too late
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-wait:
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		if mistake != "same-id" {
			cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": id, "reason": "timed out"}})
			s.stdin.Write(append(cancel, '\n'))
		}
		return nil, fmt.Errorf("%s timed out after %s", method, s.cfg.timeout)
	}
}

func (s *server) post(id int, method string, params map[string]any, body []byte) (json.RawMessage, error) {
	req, err := http.NewRequest(http.MethodPost, s.cfg.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		v := name
		for _, r := range name {
			if r < 0x20 || r > 0x7e {
				if mistake != "raw-name" {
					v = "=?base64?" + base64.StdEncoding.EncodeToString([]byte(name)) + "?="
				}
				break
			}
		}
		req.Header["Mcp-Name"] = []string{v}
	}
	start := time.Now()
	c := &http.Client{Timeout: s.cfg.timeout}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var msgs [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		var data []string
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(v, " "))
			} else if line == "" && data != nil {
				msgs = append(msgs, []byte(strings.Join(data, "\n")))
				data = nil
				if mistake == "first-event" {
					break
				}
			}
		}
		if err := sc.Err(); err != nil && mistake == "wait-on-break" {
			time.Sleep(s.cfg.timeout - time.Since(start))
			return nil, fmt.Errorf("%s timed out", method)
		}
	} else {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, b)
	}
	for _, m := range msgs {
		var r response
		if json.Unmarshal(m, &r) != nil {
			continue
		}
		if mistake != "first-event" && (r.ID == nil || *r.ID != id) {
			continue
		}
		return r.outcome()
	}
	return nil, fmt.Errorf("the answer to %s ended without a response", method)
}

func (s *server) listTools() ([]*tool, error) {
	var out []*tool
	var cursor *string
	for {
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		res, err := s.request("tools/list", params)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Annotations struct {
					ReadOnly bool `json:"readOnlyHint"`
				} `json:"annotations"`
			} `json:"tools"`
			NextCursor *string `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, err
		}
		for _, t := range page.Tools {
			out = append(out, &tool{original: t.Name, description: t.Description + " (from " + s.cfg.alias + ")", server: s, readOnly: t.Annotations.ReadOnly})
		}
		if page.NextCursor == nil || mistake == "first-page" {
			return out, nil
		}
		cursor = page.NextCursor
	}
}
