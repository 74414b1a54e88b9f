// Package scenario reads the scenario files of the lessons: what a scripted
// client sends to a server and when, and the answers a correct server gives.
// A scenario is data, so a teacher can add a case without writing Go.
//
// A scenario file is a txtar archive. Its comment describes it. The file
// "steps" is the schedule, one step a line:
//
//	at 0ms send wait1            write the part "wait1" 0 ms after the start
//	at 20ms send ping[:12]       write the first 12 bytes of the part "ping"
//	at 40ms send ping[12:] bad   write the rest of "ping" and all of "bad" in one write
//	await 2 within 5s            wait until the answer to id 2 has come (or 5 s)
//	at 200ms close               close the server's stdin; then it must exit
//	at 0ms close early           close it at once, with answers still to come
//	kill                         stop the server without closing stdin first
//
// Times count from the moment the server said it was ready. A step whose time
// has passed (an await took long) runs at once. With no close or kill, stdin
// is closed after the last step. Slices are byte offsets; a negative one
// counts from the end.
//
// A client waits for its answers before it ends its server's input, and so
// does a scenario: before every close that is not "early", and before the
// close after the last step, the parser adds an await of every request sent
// so far (every line with a string or integer id), all under one deadline,
// DefaultWait (scaled like every deadline). What a server does with requests
// still in flight when its input ends is for a scenario of its own, one
// that says "close early".
//
// The file "expect" lists what a correct server answers, one line each,
// headed by the ids of the checks that the line counts for:
//
//	methods.wait          {"jsonrpc":"2.0","id":1,"result":{"waited":80}}
//	errors.parse          {"jsonrpc":"2.0","id":null,"error":{"code":-32700}}
//	order.concurrent      2 before 1
//
// An expected error matches on its code alone; its message is free text.
// Answers match by id, in any order; answers with id null match by code. An
// expected answer with no "id" member asks for an answer with none (MCP
// 2026-07-28 leaves it out of a parse error); it is tied to a line like an
// answer with id null. The word "partial" before an answer lets it match
// partially: every member it lists, at any depth, must be there with that
// value, and other members are free (arrays must have the same length, and
// match element by element):
//
//	tools.list partial    {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"get_ticket"}]}}
//
// An order line asks that the answer to the first id arrives before the
// answer to the second. Every other file of the archive is a part that steps
// send.
package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/txtar"
	"github.com/mcplab/mcplab/lab/wire"
)

// Scenario is one parsed scenario file.
type Scenario struct {
	// Name is the file's name without its directory and ".txtar".
	Name string
	// Comment is the description at the top of the file.
	Comment string
	// Parts are the named byte strings that steps send.
	Parts  map[string][]byte
	Steps  []Step
	Expect []Expectation
	Orders []Order
	// Tests look inside one answer, member by member (see AnswerTest).
	Tests []AnswerTest
}

// StepKind says what a step does.
type StepKind int

// The kinds of step.
const (
	StepSend  StepKind = iota // write bytes to the server's stdin
	StepClose                 // close the server's stdin
	StepAwait                 // wait for the answer to one id
	StepKill                  // stop the server at once
)

// Step is one line of a schedule.
type Step struct {
	Kind StepKind
	// At is when a send or close happens, counted from the start.
	At time.Duration
	// Data is what a send writes, in one write.
	Data []byte
	// ID and Within are an await's id and deadline. An await the parser
	// adds before a close waits for every id of IDs (ID is then the first),
	// all under the one deadline, and is Implicit.
	ID       json.RawMessage
	IDs      []json.RawMessage
	Within   time.Duration
	Implicit bool
	// Early marks a close that does not wait for the answers still due.
	Early bool
	// Line is the step's line in the file, for error messages.
	Line int
	// Source is the step as written.
	Source string
}

// Expectation is one answer a correct server sends.
type Expectation struct {
	// Checks are the ids of the checks this answer counts for.
	Checks []string
	// ID is the answer's id, exactly; "null" for an answer with id null.
	ID json.RawMessage
	// Result is the expected result, or nil when an error is expected.
	Result json.RawMessage
	// Code is the expected error code, when Result is nil.
	Code int
	// Text is the expected answer as written in the file.
	Text string
	Line int
	// Partial lets the answer hold members the expected one does not list.
	Partial bool
	// NoID asks for an answer with no "id" member; ID is then null.
	NoID bool
}

// Order asks that the answer to First arrives before the answer to Then.
type Order struct {
	Checks      []string
	First, Then json.RawMessage
	Line        int
}

// AnswerTest is an expect line that looks inside the answer to one id:
//
//	methods.unknown   answer 7 error.message contains "tickets/get"
//	tools.list        answer 1 result.ttlMs present
//
// After "answer" come the id, a path and a test, as in a client scenario's
// answer lines (grading parses and applies them): PATH is members joined by
// dots, [k=v] picks an array element by a member, [N] by its place; the test
// is =, !=, present, absent, prefix, suffix or contains, with a JSON value
// where it takes one.
type AnswerTest struct {
	Checks []string
	// ID is the id of the request whose answer is tested.
	ID json.RawMessage
	// Spec is what follows the id: the path, the test and its value.
	Spec string
	Text string
	Line int
}

// ParseFile reads and parses one scenario file.
func ParseFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading scenario: %w", err)
	}
	return Parse(strings.TrimSuffix(filepath.Base(path), ".txtar"), data)
}

// Parse parses a scenario from the bytes of its file. Errors name the line.
func Parse(name string, data []byte) (*Scenario, error) {
	ar := txtar.Parse(data)
	sc := &Scenario{Name: name, Comment: strings.TrimSpace(string(ar.Comment)), Parts: map[string][]byte{}}
	var steps, expect *txtar.File
	for i := range ar.Files {
		f := &ar.Files[i]
		switch f.Name {
		case "steps":
			steps = f
		case "expect":
			expect = f
		default:
			if _, dup := sc.Parts[f.Name]; dup {
				return nil, fmt.Errorf("scenario %s: the part %q is defined twice", name, f.Name)
			}
			sc.Parts[f.Name] = f.Data
		}
	}
	if steps == nil {
		return nil, fmt.Errorf("scenario %s: no \"-- steps --\" section", name)
	}
	if err := sc.parseSteps(steps); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	if expect != nil {
		if err := sc.parseExpect(expect); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", name, err)
		}
	}
	return sc, nil
}

func (sc *Scenario) parseSteps(f *txtar.File) error {
	for i, line := range strings.Split(string(f.Data), "\n") {
		n := f.Line + i + 1
		fields := strings.Fields(stripComment(line))
		if len(fields) == 0 {
			continue
		}
		st, err := sc.parseStep(fields, line)
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		st.Line = n
		sc.Steps = append(sc.Steps, st)
	}
	if len(sc.Steps) == 0 {
		return fmt.Errorf("the steps section is empty")
	}
	sc.AddWaits(DefaultWait)
	return nil
}

// parseStep reads one line of the steps section, split into its fields;
// the caller adds the line's number to the step and to an error.
func (sc *Scenario) parseStep(fields []string, line string) (Step, error) {
	st := Step{Source: strings.Join(fields, " ")}
	switch fields[0] {
	case "at":
		if len(fields) < 3 {
			return st, fmt.Errorf("%q: want \"at TIME send PART...\", \"at TIME close\" or \"at TIME close early\"", line)
		}
		at, err := parseDuration(fields[1])
		if err != nil {
			return st, err
		}
		st.At = at
		switch fields[2] {
		case "send":
			if len(fields) < 4 {
				return st, fmt.Errorf("send names no part")
			}
			for _, ref := range fields[3:] {
				b, err := sc.slice(ref)
				if err != nil {
					return st, err
				}
				st.Data = append(st.Data, b...)
			}
			st.Kind = StepSend
		case "close":
			st.Kind = StepClose
			switch {
			case len(fields) == 4 && fields[3] == "early":
				st.Early = true
			case len(fields) > 3:
				return st, fmt.Errorf("%q: want \"at TIME close\" or \"at TIME close early\"", line)
			}
		default:
			return st, fmt.Errorf("unknown action %q (want send or close)", fields[2])
		}
	case "await":
		if len(fields) != 4 || fields[2] != "within" {
			return st, fmt.Errorf("%q: want \"await ID within TIME\"", line)
		}
		id, err := parseID(fields[1])
		if err != nil {
			return st, err
		}
		within, err := parseDuration(fields[3])
		if err != nil {
			return st, err
		}
		st.Kind, st.ID, st.Within = StepAwait, id, within
	case "kill":
		st.Kind = StepKill
	default:
		return st, fmt.Errorf("unknown step %q (want at, await or kill)", fields[0])
	}
	return st, nil
}

// DefaultWait is how long a scenario waits, before it closes stdin, for the
// answers to the requests it has sent (before TimeScale).
const DefaultWait = 5 * time.Second

// AddWaits puts an implicit await before every close that is not early, and
// before the implicit close after the last step (unless the scenario kills
// the server or already ends in such an await): it waits, within one
// deadline, for the answer to every request sent before it. Parse calls it;
// a scenario built in code (a sweep) calls it once its steps are in place.
func (sc *Scenario) AddWaits(within time.Duration) {
	var out []Step
	var sent []byte
	wait := func(line int) {
		ids := RequestIDs(sent)
		if len(ids) == 0 {
			return
		}
		out = append(out, Step{Kind: StepAwait, ID: ids[0], IDs: ids, Within: within, Implicit: true, Line: line,
			Source: fmt.Sprintf("(await the answers to %d request(s) before closing stdin)", len(ids))})
	}
	ended := false
	for _, st := range sc.Steps {
		if ended {
			out = append(out, st)
			continue
		}
		switch {
		case st.Kind == StepAwait && st.Implicit:
			continue // added before: made again below
		case st.Kind == StepSend:
			sent = append(sent, st.Data...)
		case st.Kind == StepClose && !st.Early:
			wait(st.Line)
			ended = true
		case st.Kind == StepClose || st.Kind == StepKill:
			ended = true
		}
		out = append(out, st)
	}
	if !ended {
		last := 0
		if len(out) > 0 {
			last = out[len(out)-1].Line
		}
		wait(last)
	}
	sc.Steps = out
}

// RequestIDs lists, in order, the id of every line of data that a correct
// server answers with that line's own id: each request, and each bad line
// whose string or integer id can be read.
func RequestIDs(data []byte) []json.RawMessage {
	var ids []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		msg, problem := wire.ParseRequest(line)
		switch {
		case problem != nil && wire.UsableID(problem.ID):
			ids = append(ids, problem.ID)
		case problem == nil && msg.Kind == wire.KindRequest:
			ids = append(ids, msg.ID)
		}
	}
	return ids
}

// slice resolves "name", "name[a:b]", "name[a:]" or "name[:b]".
func (sc *Scenario) slice(ref string) ([]byte, error) {
	name, rng, hasRange := strings.Cut(ref, "[")
	data, ok := sc.Parts[name]
	if !ok {
		return nil, fmt.Errorf("no part named %q (parts: %s)", name, strings.Join(sc.partNames(), ", "))
	}
	if !hasRange {
		return data, nil
	}
	rng, ok = strings.CutSuffix(rng, "]")
	lo, hi, colon := strings.Cut(rng, ":")
	if !ok || !colon {
		return nil, fmt.Errorf("bad slice %q: want name[a:b]", ref)
	}
	index := func(s string, def int) (int, error) {
		if s == "" {
			return def, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("bad slice %q: %q is not a whole number", ref, s)
		}
		if v < 0 {
			v += len(data)
		}
		if v < 0 || v > len(data) {
			return 0, fmt.Errorf("bad slice %q: %d is outside the part's %d bytes", ref, v, len(data))
		}
		return v, nil
	}
	a, err := index(lo, 0)
	if err != nil {
		return nil, err
	}
	b, err := index(hi, len(data))
	if err != nil {
		return nil, err
	}
	if a > b {
		return nil, fmt.Errorf("bad slice %q: start after end", ref)
	}
	return data[a:b], nil
}

func (sc *Scenario) partNames() []string {
	var names []string
	for n := range sc.Parts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (sc *Scenario) parseExpect(f *txtar.File) error {
	for i, line := range strings.Split(string(f.Data), "\n") {
		n := f.Line + i + 1
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if err := sc.parseExpectLine(n, trimmed); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return nil
}

// parseExpectLine reads line n of the expect section, trimmed: check ids,
// then an answer object, an answer test or an order; the caller adds the
// line's number to an error.
func (sc *Scenario) parseExpectLine(n int, trimmed string) error {
	head, rest, _ := strings.Cut(trimmed, " ")
	checks := strings.Split(head, ",")
	for _, c := range checks {
		if !validCheckID(c) {
			return fmt.Errorf("%q is not a check id (like errors.parse)", c)
		}
	}
	rest = strings.TrimSpace(rest)
	partial := false
	if after, ok := strings.CutPrefix(rest, "partial "); ok {
		partial, rest = true, strings.TrimSpace(after)
	}
	if strings.HasPrefix(rest, "{") {
		e, err := parseAnswer(rest)
		if err != nil {
			return err
		}
		e.Checks, e.Line, e.Partial = checks, n, partial
		sc.Expect = append(sc.Expect, e)
		return nil
	}
	if partial {
		return fmt.Errorf("\"partial\" must be followed by an answer object")
	}
	if after, ok := strings.CutPrefix(rest, "answer "); ok {
		idText, spec, _ := strings.Cut(strings.TrimSpace(after), " ")
		id, err := parseID(idText)
		if err != nil {
			return err
		}
		if strings.TrimSpace(spec) == "" {
			return fmt.Errorf("want \"answer ID PATH TEST [VALUE]\" after the check ids")
		}
		sc.Tests = append(sc.Tests, AnswerTest{Checks: checks, ID: id, Spec: strings.TrimSpace(spec), Text: trimmed, Line: n})
		return nil
	}
	f := strings.Fields(rest)
	if len(f) != 3 || f[1] != "before" {
		return fmt.Errorf("want an answer object or \"ID before ID\" after the check ids")
	}
	first, err := parseID(f[0])
	if err != nil {
		return err
	}
	then, err := parseID(f[2])
	if err != nil {
		return err
	}
	sc.Orders = append(sc.Orders, Order{Checks: checks, First: first, Then: then, Line: n})
	return nil
}

func parseAnswer(written string) (Expectation, error) {
	text, noID := written, false
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &top) == nil && top != nil {
		if _, ok := top["id"]; !ok {
			noID = true
			top["id"] = wire.Null
			b, _ := json.Marshal(top)
			text = string(b)
		}
	}
	msg, why := wire.ParseResponse([]byte(text))
	if msg == nil {
		// Expected errors may leave out the message: fill it in and retry.
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(text), &obj) == nil {
			var e map[string]json.RawMessage
			if json.Unmarshal(obj["error"], &e) == nil && e != nil {
				if _, ok := e["message"]; !ok {
					e["message"] = json.RawMessage(`""`)
					obj["error"], _ = json.Marshal(e)
					b, _ := json.Marshal(obj)
					msg, why = wire.ParseResponse(b)
				}
			}
		}
	}
	if msg == nil {
		return Expectation{}, fmt.Errorf("the expected answer %s is not a response: %s", written, why)
	}
	e := Expectation{ID: msg.ID, Result: msg.Result, Text: written, NoID: noID}
	if msg.Error != nil {
		e.Code = msg.Error.Code
	}
	return e, nil
}

// parseID reads an id as written in a step or an order line: a JSON string,
// an integer or null.
func parseID(s string) (json.RawMessage, error) {
	raw := json.RawMessage(s)
	if s == "null" || (json.Valid(raw) && wire.UsableID(raw)) {
		return raw, nil
	}
	return nil, fmt.Errorf("%q is not an id (a JSON string like \"a\", an integer, or null)", s)
}

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a time like 40ms or 5s", s)
	}
	return d, nil
}

func stripComment(line string) string {
	if i := strings.Index(line, "#"); i >= 0 {
		return line[:i]
	}
	return line
}

func validCheckID(s string) bool {
	if s == "" || !strings.Contains(s, ".") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Sent returns every byte the scenario writes, in order.
func (sc *Scenario) Sent() []byte {
	var all []byte
	for _, st := range sc.Steps {
		if st.Kind == StepSend {
			all = append(all, st.Data...)
		}
	}
	return all
}

// Ends says how the scenario ends: by closing stdin (the server must then
// exit by itself) or by killing the server.
func (sc *Scenario) Ends() StepKind {
	for _, st := range sc.Steps {
		if st.Kind == StepKill || st.Kind == StepClose {
			return st.Kind
		}
	}
	return StepClose
}
