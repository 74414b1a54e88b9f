// Command helpdesk is lesson 2's reference helpdesk (lab/helpdesk, on the
// lesson's own data) with one rule broken on purpose, so that the grader's
// tests can check that every rule of lesson 2 costs exactly its checks.
//
// With no flags it is the reference helpdesk. The flag -mistake NAME sits
// between the reference server and its streams and changes what one kind of
// line gets (go run . -mistake list to see them all):
//
//	method-message         -32601 says "Method not found" without the method's name
//	no-supported           -32022 has no data.supported
//	version-as-meta-error  an unknown revision gets -32602 instead of -32022
//	list-no-cache          tools/list has no ttlMs and no cacheScope
//	list-no-serverinfo     tools/list has no _meta with serverInfo
//	no-input-schema        tools/list's tools have no inputSchema
//	vague-text             tools/call's text does not describe the ticket
//	cursor-ignored         a cursor the server never gave out gets the first page
//	number-arg-error       a ticket_id that is a number gets -32602, not an isError result
//	missing-ticket-error   a ticket that does not exist gets -32602, not an isError result
//	unknown-tool-result    an unknown tool gets an isError result, not -32602
//	discover-no-cache      server/discover has no ttlMs
//	discover-no-tools      server/discover's capabilities do not list tools
//	discover-old-versions  server/discover's supportedVersions lists 2025-11-25 alone
//	stateful-meta          a request without _meta borrows the last _meta seen
//	meta-outside-params    _meta beside params counts as if it were inside
//	no-jsonrpc-check       a request without "jsonrpc":"2.0" is served
//	null-id-echo           -32600 for a request whose id is null carries "id": null
//	bool-id-accepted       a request whose id is true is served, answered with id true
//	parse-id-null          -32700 carries "id": null
//	answers-notifications  a notification gets -32601 with no id
//	no-legacy              initialize gets -32601
//	legacy-newest          initialize is answered with 2025-11-25, whatever was asked
//	legacy-result-type     legacy results carry resultType
//	stringify-ids          integer ids come back as strings
//	double-answer          every tools/call is answered twice
//	stdout-log             a log line goes to stdout after each answer
//	no-stderr              nothing at all goes to stderr
//	exit-status-1          exits with status 1, not 0, once stdin has closed
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/mcplab/mcplab/lab/helpdesk"
	"github.com/mcplab/mcplab/lessons"
)

// maxLine bounds one line read from stdin or from the reference server.
const maxLine = 4 << 20

// mistakes maps each mistake to what it changes: in the lines read
// (in), in the answers written (out), or elsewhere (nil functions).
var mistakes = map[string]mistake{
	"method-message": {out: func(m obj) []obj {
		if errCode(m) == -32601 {
			m["error"] = obj{"code": -32601, "message": "Method not found"}
		}
		return []obj{m}
	}},
	"no-supported": {out: func(m obj) []obj {
		if errCode(m) == -32022 {
			if d, ok := m.errObj()["data"].(map[string]any); ok {
				delete(d, "supported")
			}
		}
		return []obj{m}
	}},
	"version-as-meta-error": {out: func(m obj) []obj {
		if errCode(m) == -32022 {
			m["error"] = obj{"code": -32602, "message": "Invalid params: bad protocolVersion"}
		}
		return []obj{m}
	}},
	"list-no-cache":      {out: onResult("tools", func(r obj) { delete(r, "ttlMs"); delete(r, "cacheScope") })},
	"list-no-serverinfo": {out: onResult("tools", func(r obj) { delete(r, "_meta") })},
	"no-input-schema": {out: onResult("tools", func(r obj) {
		for _, t := range r["tools"].([]any) {
			delete(t.(map[string]any), "inputSchema")
		}
	})},
	"vague-text": {out: onResult("structuredContent", func(r obj) {
		r["content"] = []any{obj{"type": "text", "text": "Here is what you asked for."}}
	})},
	"cursor-ignored": {in: func(m obj) (obj, obj) {
		if p := m.params(); p != nil && m["method"] == "tools/list" {
			delete(p, "cursor")
		}
		return m, nil
	}},
	"number-arg-error": {in: func(m obj) (obj, obj) {
		if m["method"] == "tools/call" {
			if args, ok := m.params()["arguments"].(map[string]any); ok {
				if _, isString := args["ticket_id"].(string); !isString {
					return nil, errorFor(m, -32602, "Invalid params: ticket_id must be a string")
				}
			}
		}
		return m, nil
	}},
	"missing-ticket-error": {out: func(m obj) []obj {
		if r := m.result(); r != nil && r["isError"] == true {
			return []obj{{"jsonrpc": "2.0", "id": m["id"], "error": obj{"code": -32602, "message": "Invalid params: no such ticket"}}}
		}
		return []obj{m}
	}},
	"unknown-tool-result": {out: func(m obj) []obj {
		if errCode(m) == -32602 && strings.HasPrefix(fmt.Sprint(m.errObj()["message"]), "Unknown tool") {
			return []obj{{"jsonrpc": "2.0", "id": m["id"], "result": obj{"resultType": "complete", "isError": true,
				"content": []any{obj{"type": "text", "text": "There is no such tool."}}}}}
		}
		return []obj{m}
	}},
	"discover-no-cache":     {out: onResult("supportedVersions", func(r obj) { delete(r, "ttlMs") })},
	"discover-no-tools":     {out: onResult("supportedVersions", func(r obj) { r["capabilities"] = obj{} })},
	"discover-old-versions": {out: onResult("supportedVersions", func(r obj) { r["supportedVersions"] = []any{"2025-11-25"} })},
	"stateful-meta":         {in: statefulMeta()},
	"meta-outside-params": {in: func(m obj) (obj, obj) {
		if top, ok := m["_meta"]; ok {
			p := m.params()
			if p == nil {
				p = obj{}
				m["params"] = p
			}
			if _, inside := p["_meta"]; !inside {
				p["_meta"] = top
			}
			delete(m, "_meta")
		}
		return m, nil
	}},
	"no-jsonrpc-check": {in: func(m obj) (obj, obj) {
		if _, ok := m["jsonrpc"]; !ok {
			m["jsonrpc"] = "2.0"
		}
		return m, nil
	}},
	"null-id-echo": {out: func(m obj) []obj {
		if _, has := m["id"]; !has && errCode(m) == -32600 {
			m["id"] = nil
		}
		return []obj{m}
	}},
	"bool-id-accepted": {
		in: func(m obj) (obj, obj) {
			if m["id"] == true {
				m["id"] = boolStandIn
			}
			return m, nil
		},
		out: func(m obj) []obj {
			if m["id"] == boolStandIn {
				m["id"] = true
			}
			return []obj{m}
		}},
	"parse-id-null": {out: func(m obj) []obj {
		if errCode(m) == -32700 {
			m["id"] = nil
		}
		return []obj{m}
	}},
	"answers-notifications": {in: func(m obj) (obj, obj) {
		if _, has := m["id"]; !has {
			if _, ok := m["method"].(string); ok {
				return m, obj{"jsonrpc": "2.0", "error": obj{"code": -32601, "message": "Method not found"}}
			}
		}
		return m, nil
	}},
	"no-legacy": {in: func(m obj) (obj, obj) {
		if m["method"] == "initialize" {
			return nil, errorFor(m, -32601, "Method not found: initialize")
		}
		return m, nil
	}},
	"legacy-newest": {out: onResult("serverInfo", func(r obj) { r["protocolVersion"] = "2025-11-25" })},
	"legacy-result-type": {out: func(m obj) []obj {
		if r := m.result(); r != nil {
			if _, ok := r["resultType"]; !ok {
				r["resultType"] = "complete"
			}
		}
		return []obj{m}
	}},
	"stringify-ids": {out: func(m obj) []obj {
		if n, ok := m["id"].(json.Number); ok {
			m["id"] = n.String()
		}
		return []obj{m}
	}},
	"double-answer": {out: func(m obj) []obj {
		if r := m.result(); r != nil {
			if _, ok := r["content"]; ok {
				return []obj{m, m}
			}
		}
		return []obj{m}
	}},
	"stdout-log":    {log: "helpdesk: answered a request"},
	"no-stderr":     {},
	"exit-status-1": {},
}

// boolStandIn is the id a true id travels under through the reference
// server, which would refuse it.
const boolStandIn = "mistake:bool-id"

// mistake is one broken rule.
type mistake struct {
	// in sees each line read that is a JSON object; it returns the line to
	// pass on (nil: none) and an answer of its own (nil: none).
	in func(obj) (obj, obj)
	// out sees each answer of the reference server and returns what to
	// write instead.
	out func(obj) []obj
	// log is a line written to stdout after each answer.
	log string
}

// obj is a decoded JSON object.
type obj map[string]any

// params is the message's params object, or nil.
func (m obj) params() map[string]any { p, _ := m["params"].(map[string]any); return p }

// result is the answer's result object, or nil.
func (m obj) result() map[string]any { r, _ := m["result"].(map[string]any); return r }

// errObj is the answer's error object, or nil.
func (m obj) errObj() map[string]any { e, _ := m["error"].(map[string]any); return e }

func main() {
	name := flag.String("mistake", "", "break one rule on purpose (list: print them)")
	flag.Parse()
	if *name == "list" {
		var names []string
		for n := range mistakes {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Println(strings.Join(names, "\n"))
		return
	}
	mk, ok := mistakes[*name]
	if *name != "" && !ok {
		fmt.Fprintf(os.Stderr, "helpdesk: no mistake named %q; -mistake list names them\n", *name)
		os.Exit(2)
	}
	logTo := io.Writer(os.Stderr)
	if *name == "no-stderr" {
		logTo = io.Discard
	}
	if err := run(mk, logTo); err != nil {
		fmt.Fprintf(logTo, "helpdesk: %v\n", err)
		os.Exit(1)
	}
	if *name == "exit-status-1" {
		os.Exit(1)
	}
}

// run serves lesson 2's data with the reference helpdesk, passing what it
// reads and writes through the mistake.
func run(mk mistake, logTo io.Writer) error {
	m, err := lessons.Get(2)
	if err != nil {
		return fmt.Errorf("finding lesson 2: %w", err)
	}
	dir, err := fs.Sub(lessons.FS(), path.Join(m.Dir, "data"))
	if err != nil {
		return fmt.Errorf("finding lesson 2's data: %w", err)
	}
	data, err := helpdesk.LoadData(dir)
	if err != nil {
		return fmt.Errorf("loading lesson 2's data: %w", err)
	}
	srv := helpdesk.New(data)
	srv.Log = logTo
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()
	w := &lockedWriter{w: bufio.NewWriter(os.Stdout)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		eachLine(outR, func(line []byte) {
			if mk.out == nil {
				w.line(line)
			} else if msg, ok := decode(line); ok {
				for _, a := range mk.out(msg) {
					w.value(a)
				}
			} else {
				w.line(line)
			}
			if mk.log != "" {
				w.line([]byte(mk.log))
			}
		})
	}()
	var reqs = &lockedWriter{w: bufio.NewWriter(inW)}
	eachLine(os.Stdin, func(line []byte) {
		if mk.in == nil {
			reqs.line(line)
			return
		}
		msg, ok := decode(line)
		if !ok {
			reqs.line(line)
			return
		}
		pass, own := mk.in(msg)
		if own != nil {
			w.value(own)
		}
		if pass != nil {
			reqs.value(pass)
		}
	})
	inW.Close()
	<-copied
	return <-done
}

// eachLine calls f with each line of r, without its newline; a line longer
// than maxLine is passed on in maxLine pieces.
func eachLine(r io.Reader, f func([]byte)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull && len(line) < maxLine {
			continue
		}
		if len(line) > 0 {
			f(bytes.TrimSuffix(line, []byte("\n")))
		}
		line = line[:0]
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// lockedWriter writes whole lines, one at a time, and flushes each.
type lockedWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (l *lockedWriter) line(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(b)
	l.w.WriteByte('\n')
	l.w.Flush()
}

func (l *lockedWriter) value(v obj) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	l.line(b)
}

// decode reads a line that is a JSON object, keeping numbers as written.
func decode(line []byte) (obj, bool) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m obj
	if d.Decode(&m) != nil || m == nil || d.More() {
		return nil, false
	}
	return m, true
}

func errCode(m obj) int64 {
	e, _ := m["error"].(map[string]any)
	n, _ := e["code"].(json.Number)
	c, _ := n.Int64()
	return c
}

// onResult changes every result that has the member key.
func onResult(key string, change func(obj)) func(obj) []obj {
	return func(m obj) []obj {
		if r := m.result(); r != nil {
			if _, ok := r[key]; ok {
				change(r)
			}
		}
		return []obj{m}
	}
}

// errorFor is an error answer to a request.
func errorFor(m obj, code int, message string) obj {
	return obj{"jsonrpc": "2.0", "id": m["id"], "error": obj{"code": code, "message": message}}
}

// statefulMeta remembers the last params._meta it saw and gives it to a
// request that has none, as a server that keeps a session would.
func statefulMeta() func(obj) (obj, obj) {
	var last any
	return func(m obj) (obj, obj) {
		p := m.params()
		if meta, ok := p["_meta"]; ok {
			last = meta
			return m, nil
		}
		if _, isRequest := m["id"]; !isRequest || last == nil || m["method"] == "initialize" {
			return m, nil
		}
		if p == nil {
			p = map[string]any{}
			m["params"] = p
		}
		p["_meta"] = last
		return m, nil
	}
}
