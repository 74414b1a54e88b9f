// Package httpscenario reads the grading scenarios of an HTTP server
// lesson (lesson 4), in which the student serves MCP over Streamable HTTP
// and the lab plays the client: a txtar archive per scenario, each file an
// exchange written as the HTTP request the lab sends (or SIGTERM, which
// the lab sends the copy instead), and an expect file of what each
// exchange's answer must show, tagged with check ids. A teacher adds a
// case by writing one; no Go changes. It parses and checks; lab/httpprobe
// sends the requests and grading/httpserverlesson judges the answers.
//
//	Lesson 4: the second page of tools/list, asked of the other copy.
//	-- page1 a --
//	POST /mcp
//	Content-Type: application/json
//	MCP-Protocol-Version: 2026-07-28
//	Mcp-Method: tools/list
//
//	{"jsonrpc":"2.0","id":"p1","method":"tools/list","params":{...}}
//	-- page2 b --
//	POST /mcp
//	...
//
//	{"jsonrpc":"2.0","id":"p2","method":"tools/list","params":{"cursor":"{{answer page1 result.nextCursor}}",...}}
//	-- expect --
//	page1 mcp.helpdesk status 200
//	page2 stateless.any-copy answer result.tools[0].name = "get_customer"
//
// An exchange's file is named NAME or NAME COPY, COPY being a or b (a when
// left out): the copy of the server it goes to. Exchanges are played in
// the order of their files. The request is a request line (METHOD PATH),
// header lines, a blank line and the body; the lab adds no header of its
// own but Content-Length and, when there is none, User-Agent. Body and
// header values may hold {{port COPY}} (the copy's port),
// {{answer NAME PATH}} (a string of an earlier exchange's response) and
// {{pad N}} (N bytes of "x", for a body past a bound).
package httpscenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/httpprobe"
	"github.com/mcplab/mcplab/lab/txtar"
)

// The copies of the server a scenario's exchanges go to.
var Copies = []string{"a", "b"}

// MaxPad bounds {{pad N}}: 16 MiB.
const MaxPad = 16 << 20

// Scenario is one grading scenario of an HTTP server lesson.
type Scenario struct {
	// Name is the scenario's name (its file's, without .txtar).
	Name string
	// Comment is the text before the first file: what the scenario is for.
	Comment string
	// Exchanges are played in this order.
	Exchanges []*Exchange
	// Expect is what the answers must show, in the order written.
	Expect []*Expectation
}

// Exchange is one request to one copy, or a SIGTERM.
type Exchange struct {
	Name string
	// Copy is "a" or "b".
	Copy string
	// Terminate is set for an exchange that sends the copy SIGTERM
	// instead of a request.
	Terminate bool
	// Request is the request as written, its templates not yet filled.
	Request httpprobe.Request
	// Line is the line of the exchange's file marker.
	Line int
}

// Uses lists the exchanges whose answers the request's templates read.
func (e *Exchange) Uses() []string {
	var out []string
	for _, t := range e.templates() {
		if t.kind == "answer" {
			out = append(out, t.args[0])
		}
	}
	return out
}

// Parse reads scenario name from its txtar archive data.
func Parse(name string, data []byte) (*Scenario, error) {
	files, err := txtar.Files(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	sc := &Scenario{Name: name, Comment: comment(data)}
	byName := map[string]*Exchange{}
	var expect *txtar.File
	for i := range files {
		f := &files[i]
		if f.Name == "expect" {
			if expect != nil {
				return nil, fmt.Errorf("%s, line %d: a second expect file", name, f.Line)
			}
			expect = f
			continue
		}
		ex, err := parseExchange(f)
		if err != nil {
			return nil, fmt.Errorf("%s, line %d: %w", name, f.Line, err)
		}
		if byName[ex.Name] != nil {
			return nil, fmt.Errorf("%s, line %d: a second exchange named %q", name, f.Line, ex.Name)
		}
		for _, t := range ex.templates() {
			if err := t.check(byName); err != nil {
				return nil, fmt.Errorf("%s, line %d: exchange %s: %w", name, f.Line, ex.Name, err)
			}
		}
		byName[ex.Name] = ex
		sc.Exchanges = append(sc.Exchanges, ex)
	}
	if len(sc.Exchanges) == 0 {
		return nil, fmt.Errorf("%s: no exchanges: a scenario needs at least one request", name)
	}
	if expect == nil {
		return nil, fmt.Errorf("%s: no expect file: a scenario says what its answers must show", name)
	}
	for i, line := range strings.Split(string(expect.Data), "\n") {
		line = strings.TrimSpace(stripComment(line))
		if line == "" {
			continue
		}
		e, err := parseExpectation(line, byName)
		if err != nil {
			return nil, fmt.Errorf("%s, line %d: %w", name, expect.Line+1+i, err)
		}
		e.Line = expect.Line + 1 + i
		sc.Expect = append(sc.Expect, e)
	}
	return sc, nil
}

// Exchange returns the exchange of a name, or nil.
func (sc *Scenario) Exchange(name string) *Exchange {
	for _, e := range sc.Exchanges {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Checks lists the check ids the scenario's expectations tag, each once,
// in the order they first appear.
func (sc *Scenario) Checks() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range sc.Expect {
		if !seen[e.Check] {
			seen[e.Check] = true
			out = append(out, e.Check)
		}
	}
	return out
}

// comment is the text before the archive's first file.
func comment(data []byte) string {
	if i := bytes.Index(data, []byte("\n-- ")); i >= 0 {
		return strings.TrimSpace(string(data[:i]))
	}
	if bytes.HasPrefix(data, []byte("-- ")) {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// parseExchange reads one exchange's file.
func parseExchange(f *txtar.File) (*Exchange, error) {
	words := strings.Fields(f.Name)
	ex := &Exchange{Copy: "a", Line: f.Line}
	switch len(words) {
	case 2:
		ex.Copy = words[1]
		if ex.Copy != "a" && ex.Copy != "b" {
			return nil, fmt.Errorf("exchange %s: copy %q: the copies are a and b", words[0], ex.Copy)
		}
		fallthrough
	case 1:
		ex.Name = words[0]
	default:
		return nil, fmt.Errorf("exchange %q: name it NAME or NAME COPY (a or b)", f.Name)
	}
	if !validName(ex.Name) {
		return nil, fmt.Errorf("exchange %q: a name is letters, digits, - and _", ex.Name)
	}
	text := strings.ReplaceAll(string(f.Data), "\r\n", "\n")
	head, body, _ := strings.Cut(text, "\n\n")
	lines := strings.Split(strings.TrimRight(head, "\n"), "\n")
	start := strings.Fields(lines[0])
	if len(start) == 1 && start[0] == "SIGTERM" {
		if len(lines) > 1 || strings.TrimSpace(body) != "" {
			return nil, fmt.Errorf("exchange %s: SIGTERM takes no headers and no body", ex.Name)
		}
		ex.Terminate = true
		return ex, nil
	}
	if len(start) != 2 || !strings.HasPrefix(start[1], "/") || strings.ToUpper(start[0]) != start[0] {
		return nil, fmt.Errorf("exchange %s: the first line %q: want METHOD PATH (such as POST /mcp), or SIGTERM", ex.Name, lines[0])
	}
	ex.Request.Method, ex.Request.Path = start[0], start[1]
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(name) != name || name == "" {
			return nil, fmt.Errorf("exchange %s: header line %q: want Name: value", ex.Name, l)
		}
		ex.Request.Header = append(ex.Request.Header, httpprobe.Field{Name: name, Value: strings.TrimSpace(value)})
	}
	ex.Request.Body = []byte(strings.TrimRight(body, "\n"))
	for _, t := range ex.templates() {
		if err := t.syntax(); err != nil {
			return nil, fmt.Errorf("exchange %s: %w", ex.Name, err)
		}
	}
	return ex, nil
}

// ID is the JSON-RPC id of a request body, nil when the body is not a
// JSON object with an id.
func ID(body []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.ID) == 0 {
		return nil
	}
	return v.ID
}

func validName(s string) bool {
	if s == "" || s == "expect" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func stripComment(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return ""
	}
	return line
}
