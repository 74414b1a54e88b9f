package clientlesson

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientplay"
	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/mcphttp"
	"github.com/mcplab/mcplab/lab/wire"
)

// The client kind's judges, by the names a catalogue's "judge:" lines give
// them (lessons/README.md lists them). Each reads every message the client
// sent the servers the lab played, in every scenario, and charges the
// check of the catalogue that names it.
const (
	judgeNameMeta         = "meta-in-params"
	judgeNameRequestIDs   = "request-ids"
	judgeNamePagination   = "pagination"
	judgeNameHeaders      = "http-headers"
	judgeNameOriginalName = "original-name"
	judgeNameTeardown     = "teardown"
)

// clientFamilies are the client kind's judges, in the order they judge.
func clientFamilies() []clientFamily {
	return []clientFamily{
		{name: judgeNameMeta, work: judgeMeta, judge: grading.Judge{What: "every request's params._meta, and no _meta beside params"}},
		{name: judgeNameRequestIDs, work: judgeClientIDs, judge: grading.Judge{What: "request ids: strings or whole numbers, none reused while open"}},
		{name: judgeNamePagination, work: judgePagination, judge: grading.Judge{Params: []string{"method"}, Many: true,
			What: "each nextCursor of a method's answer comes back, exactly, in the next request of that method"}},
		{name: judgeNameHeaders, work: judgeHeaders, judge: grading.Judge{What: "each POST's MCP-Protocol-Version, Mcp-Method and Mcp-Name against its body"}},
		{name: judgeNameOriginalName, work: judgeOriginalName, judge: grading.Judge{What: "each tools/call names a tool its server listed"}},
		{name: judgeNameTeardown, work: judgeTeardown, judge: grading.Judge{What: "at the end of stdin: exit 0, and no stdio server left running"}},
	}
}

// clientFamily is one judge of a client lesson: its name, what a catalogue
// may ask of it, and its work, which charges the check c it serves.
type clientFamily struct {
	name  string
	judge grading.Judge
	work  func(run *clientRun, t *grading.Tally, c grading.Check)
}

// clientJudges is the client kind's registry of judges.
func clientJudges() *grading.Judges {
	var r grading.Judges
	for _, f := range clientFamilies() {
		r.Handle(f.name, f.judge)
	}
	return &r
}

// judgesFor returns the work of each judge a lesson's catalogue names,
// once per check that names it, in the order the judges judge.
func judgesFor(checks []grading.Check) []func(*clientRun, *grading.Tally) {
	var out []func(*clientRun, *grading.Tally)
	for _, f := range clientFamilies() {
		for _, c := range grading.JudgedBy(checks, f.name) {
			work := f.work
			out = append(out, func(run *clientRun, t *grading.Tally) { work(run, t, c) })
		}
	}
	return out
}

// sentMessage is one message the client sent a server.
type sentMessage struct {
	ev     event.Record
	server string // alias
	conn   int
	http   bool
	at     time.Duration
	raw    string
	msg    map[string]json.RawMessage // nil when not a JSON object
	method string
	id     json.RawMessage
}

func (m *sentMessage) isRequest() bool { return m.method != "" && m.id != nil }

// cancelledID is the requestId a notifications/cancelled names, nil when
// m is none or names no id.
func (m *sentMessage) cancelledID() json.RawMessage {
	if m.method != "notifications/cancelled" {
		return nil
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.msg["params"], &p) != nil {
		return nil
	}
	return p.RequestID
}

func (m *sentMessage) param(name string) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(m.msg["params"], &p) != nil {
		return nil
	}
	return p[name]
}

func (m *sentMessage) toolName() (string, bool) {
	var s string
	if json.Unmarshal(m.param("name"), &s) != nil {
		return "", false
	}
	return s, true
}

func (m *sentMessage) describe() string {
	return fmt.Sprintf("%s (sent to the %s server)", grading.Clip(m.raw, 160), m.server)
}

// sentMessages lists what the client sent, in order.
func (r *clientRun) sentMessages() []*sentMessage {
	var out []*sentMessage
	for _, ev := range r.Traffic {
		if ev.Kind != event.Send && ev.Kind != event.Post {
			continue
		}
		m := &sentMessage{ev: ev, server: ev.Server, conn: ev.Conn, http: ev.Kind == event.Post, at: ev.At, raw: strings.TrimSpace(ev.Text)}
		if json.Unmarshal([]byte(m.raw), &m.msg) == nil {
			json.Unmarshal(m.msg["method"], &m.method)
			if id, ok := m.msg["id"]; ok {
				m.id = id
			}
		}
		out = append(out, m)
	}
	return out
}

// replies lists the messages a server sent back on one connection (stdio)
// or exchange (HTTP), in order.
func (r *clientRun) replies(server string, conn int) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	for _, ev := range r.Traffic {
		if ev.Server != server || ev.Conn != conn || ev.Kind != event.Answer {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(ev.Text), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// responseTo finds a server's response to a request: on the same stdio
// connection by id, or in the same HTTP exchange.
func (r *clientRun) responseTo(m *sentMessage) map[string]json.RawMessage {
	for _, ev := range r.Traffic {
		if ev.Server != m.server || ev.Conn != m.conn || ev.At < m.at || ev.Kind != event.Answer {
			continue
		}
		var rep map[string]json.RawMessage
		if json.Unmarshal([]byte(ev.Text), &rep) != nil {
			continue
		}
		if id, ok := rep["id"]; ok && rep["method"] == nil && grading.JSONEqual(id, m.id) {
			return rep
		}
	}
	return nil
}

// window is the time command n (from 1) ran: from its writing until its
// answer, or the next command, or the end.
func (r *clientRun) window(n int) (from, to time.Duration, ok bool) {
	if n > len(r.Sent) {
		return 0, 0, false
	}
	from, to = r.Sent[n-1], time.Duration(1<<62)
	if a := r.Answers[n-1]; a != nil {
		to = a.At
	} else if n < len(r.Sent) {
		to = r.Sent[n]
	}
	return from, to, true
}

// callsDuring lists the tools/call requests the client sent while command
// n ran.
func (r *clientRun) callsDuring(n int) []*sentMessage {
	from, to, ok := r.window(n)
	if !ok {
		return nil
	}
	var out []*sentMessage
	for _, m := range r.sentMessages() {
		if m.method == "tools/call" && m.at >= from && m.at <= to {
			out = append(out, m)
		}
	}
	return out
}

// reached finds the call of tool that reached server while command n ran.
func (r *clientRun) reached(n int, server, tool string) (*sentMessage, string) {
	calls := r.callsDuring(n)
	for _, m := range calls {
		if name, _ := m.toolName(); m.server == server && name == tool {
			return m, ""
		}
	}
	if len(calls) == 0 {
		return nil, fmt.Sprintf("while command %d ran, the client sent no tools/call to any server", n)
	}
	var seen []string
	elsewhere := false
	for _, m := range calls {
		name, _ := m.toolName()
		seen = append(seen, fmt.Sprintf("the tool %q on the %s server", name, m.server))
		elsewhere = elsewhere || m.server != server
	}
	want := fmt.Sprintf("the tool %q", tool)
	if elsewhere {
		want += fmt.Sprintf(" on the %s server", server)
	}
	return nil, fmt.Sprintf("while command %d ran, the client called %s, not %s", n, strings.Join(seen, " and "), want)
}

// judgeClientExpected judges the scenario's expect lines, each group of a
// command and a check on its own: when a precondition of the group does
// not hold, the group is skipped with the reason.
//
// originalName is the check the original-name judge serves ("" for none),
// which a skip for a call of an unknown name points to.
func judgeClientExpected(run *clientRun, t *grading.Tally, originalName string) {
	type key struct {
		cmd   int
		check string
	}
	var order []key
	groups := map[key][]clientscenario.Expectation{}
	for _, e := range run.Scenario.Expect {
		k := key{e.Command, e.Check}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	for _, k := range order {
		es := groups[k]
		where := fmt.Sprintf("command %d %s", k.cmd, grading.Clip(run.Scenario.Commands[k.cmd-1], 120))
		skipped := ""
		for _, e := range es {
			if !e.Precondition() {
				continue
			}
			if why := run.unmet(e, originalName); why != "" {
				skipped = why
				break
			}
		}
		if skipped != "" {
			t.Skip(fmt.Sprintf("in scenario %s, %s, so %s cannot be seen there", run.Scenario.Name, skipped, k.check), k.check)
			continue
		}
		for _, e := range es {
			if e.Precondition() {
				continue
			}
			if f := run.judgeOne(e); f != nil {
				f.What = fmt.Sprintf("for command %d %s, %s", k.cmd, grading.Clip(run.Scenario.Commands[k.cmd-1], 120), f.What)
				f.Scenario, f.Where = run.Scenario.Name, where
				t.Fail(*f, e.Check)
			} else {
				t.Test(e.Check)
			}
		}
	}
}

// unmet says why a precondition does not hold, or "" when it does.
// originalName is the check that judges the names of calls, if any.
func (r *clientRun) unmet(e clientscenario.Expectation, originalName string) string {
	switch e.Kind {
	case "needs":
		if _, why := r.reached(e.Command, e.Alias, e.Tool); why != "" {
			return why
		}
	case "needs-known-name":
		calls := r.callsDuring(e.Command)
		if len(calls) == 0 {
			return fmt.Sprintf("while command %d ran, the client sent no tools/call to any server", e.Command)
		}
		listed := r.listedTools()
		for _, m := range calls {
			if name, _ := m.toolName(); listed[m.server][name] {
				return ""
			}
		}
		name, _ := calls[0].toolName()
		see := ""
		if originalName != "" {
			see = " (see " + originalName + ")"
		}
		return fmt.Sprintf("while command %d ran, the client called the tool %q on the %s server, a name that server does not know%s", e.Command, name, calls[0].server, see)
	case "needs-answer":
		a := r.Answers[e.Command-1]
		if a == nil {
			return fmt.Sprintf("command %d got no answer", e.Command)
		}
		if f := grading.TestAnswer(e, answerLine(a)); f != nil {
			return fmt.Sprintf("the answer to command %d does not show %s (%s)", e.Command, strings.TrimPrefix(e.Text, fmt.Sprintf("%d %s needs-answer ", e.Command, e.Check)), f.What)
		}
	}
	return ""
}

// judgeOne judges one expect line; nil means it holds.
func (r *clientRun) judgeOne(e clientscenario.Expectation) *grading.Failure {
	a := r.Answers[e.Command-1]
	missing := func() *grading.Failure {
		// An answer that did not come rests on a deadline (the wait for it,
		// or the exit after stdin closed, ran out) unless the client ended
		// by itself first.
		f := &grading.Failure{What: fmt.Sprintf("the client gave no answer to command %d%s", e.Command, r.whyNoAnswer()), Expected: "one JSON line per command, in order",
			Deadline: !(r.ExitAt >= 0 && !r.Exited)}
		return f
	}
	switch e.Kind {
	case "answer":
		if a == nil {
			return missing()
		}
		return grading.TestAnswer(e, answerLine(a))
	case "within":
		if a == nil {
			return missing()
		}
		took := a.At - r.Sent[e.Command-1]
		limit := clientplay.Scaled(e.Within, r.Scale)
		if took > limit {
			return &grading.Failure{What: fmt.Sprintf("the answer took %s", took.Round(10*time.Millisecond)), Expected: fmt.Sprintf("an answer within %s", limit.Round(10*time.Millisecond)), Actual: grading.Clip(a.Text, 300), Deadline: true}
		}
	case "reaches":
		if _, why := r.reached(e.Command, e.Alias, e.Tool); why != "" {
			return &grading.Failure{What: why, Expected: fmt.Sprintf("a tools/call of %q, the server's own name for the tool, sent to the %s server", e.Tool, e.Alias)}
		}
	case "notified":
		return r.judgeNotified(e)
	}
	return nil
}

func (r *clientRun) whyNoAnswer() string {
	switch {
	case r.ExitAt >= 0 && !r.Exited:
		return fmt.Sprintf(" (the client %s before it answered)", r.Exit)
	case r.Killed != "":
		return " (" + r.Killed + ")"
	}
	return " in time"
}

// judgeNotified checks that the answer streamed to the call held a
// notification before its response.
func (r *clientRun) judgeNotified(e clientscenario.Expectation) *grading.Failure {
	var call *sentMessage
	for _, m := range r.callsDuring(e.Command) {
		if m.server == e.Alias && m.http {
			call = m
		}
	}
	if call == nil {
		return &grading.Failure{What: fmt.Sprintf("while command %d ran, the client sent no tools/call to %s", e.Command, e.Alias)}
	}
	for _, rep := range r.replies(call.server, call.conn) {
		if _, ok := rep["id"]; ok {
			break
		}
		if _, ok := rep["method"]; ok {
			return nil
		}
	}
	var meta map[string]json.RawMessage
	json.Unmarshal(call.param("_meta"), &meta)
	if _, ok := meta["progressToken"]; !ok {
		return &grading.Failure{What: fmt.Sprintf("the call %s asked for no progress (params._meta has no progressToken), so %s had no notification to send before the response", grading.Clip(call.raw, 160), e.Alias),
			Expected: "a progressToken in params._meta of every tools/call, as the contract asks, and then the one response picked out by its id"}
	}
	return &grading.Failure{What: fmt.Sprintf("%s sent no notification before its response to %s", e.Alias, grading.Clip(call.raw, 160)), Expected: "a progress notification, then the response"}
}

// judgeMeta: every request carries _meta inside params, with the protocol
// version and the client's capabilities, and none beside params.
func judgeMeta(run *clientRun, t *grading.Tally, c grading.Check) {
	for _, m := range run.sentMessages() {
		if !m.isRequest() {
			continue
		}
		t.Test(c.ID)
		if _, ok := m.msg["_meta"]; ok {
			t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the request %s has _meta beside params, at the top of the message", m.describe()), Expected: "_meta inside params", Actual: grading.Clip(m.raw, 300)}, c.ID)
			continue
		}
		var meta map[string]json.RawMessage
		if json.Unmarshal(m.param("_meta"), &meta) != nil || meta == nil {
			t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the request %s has no params._meta", m.describe()), Expected: `params._meta with "io.modelcontextprotocol/protocolVersion": "2026-07-28" and "io.modelcontextprotocol/clientCapabilities"`, Actual: grading.Clip(m.raw, 300)}, c.ID)
			continue
		}
		var version string
		json.Unmarshal(meta["io.modelcontextprotocol/protocolVersion"], &version)
		var caps map[string]json.RawMessage
		capsErr := json.Unmarshal(meta["io.modelcontextprotocol/clientCapabilities"], &caps)
		switch {
		case version != "2026-07-28":
			t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the request %s gives protocolVersion %s", m.describe(), clientscenario.NonEmpty(string(meta["io.modelcontextprotocol/protocolVersion"]), "not at all")), Expected: `"io.modelcontextprotocol/protocolVersion": "2026-07-28" in params._meta`, Actual: grading.Clip(m.raw, 300)}, c.ID)
		case capsErr != nil || caps == nil:
			t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the request %s has no clientCapabilities object in params._meta", m.describe()), Expected: `"io.modelcontextprotocol/clientCapabilities": {...} in params._meta`, Actual: grading.Clip(m.raw, 300)}, c.ID)
		}
	}
}

// judgeClientIDs: every request id is a string or a whole number, and no id
// is used again while a request with it is still open: on a stdio
// connection until its response (or a notifications/cancelled for it), on
// an HTTP server until its exchange is over.
func judgeClientIDs(run *clientRun, t *grading.Tally, c grading.Check) {
	type key struct {
		server string
		conn   int // 0 for every exchange of an HTTP server
	}
	open := map[key]map[string]bool{}
	posts := map[string]*sentMessage{}
	closeID := func(k key, id string) {
		if open[k] != nil {
			delete(open[k], id)
		}
	}
	sent := run.sentMessages()
	next := 0
	for _, ev := range run.Traffic {
		switch ev.Kind {
		case event.Answer:
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(ev.Text), &m) == nil && m["id"] != nil && m["method"] == nil {
				closeID(key{ev.Server, ev.Conn}, string(grading.CompactJSON(m["id"])))
			}
		case event.Exit:
			if p := posts[fmt.Sprintf("%s#%d", ev.Server, ev.Conn)]; p != nil {
				if p.id != nil {
					closeID(key{ev.Server, 0}, string(grading.CompactJSON(p.id)))
				}
			} else {
				delete(open, key{ev.Server, ev.Conn})
			}
		case event.Send, event.Post:
			m := sent[next]
			next++
			k := key{m.server, m.conn}
			if m.http {
				k.conn = 0
				posts[fmt.Sprintf("%s#%d", m.server, m.conn)] = m
			}
			if m.method == "notifications/cancelled" {
				closeID(k, string(grading.CompactJSON(m.cancelledID())))
				continue
			}
			if !m.isRequest() {
				continue
			}
			t.Test(c.ID)
			if grading.IDType(m.id) != "a string" && !wholeNumber(m.id) {
				t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the request %s has id %s", m.describe(), m.id), Expected: "an id that is a string or a whole number", Actual: grading.Clip(m.raw, 300)}, c.ID)
				continue
			}
			id := string(grading.CompactJSON(m.id))
			if open[k] == nil {
				open[k] = map[string]bool{}
			}
			if open[k][id] {
				t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the request %s reuses id %s while the request with that id is still waiting for its answer", m.describe(), id), Expected: "a new id for each request, such as the next number", Actual: grading.Clip(m.raw, 300)}, c.ID)
			}
			open[k][id] = true
		}
	}
}

func wholeNumber(id json.RawMessage) bool {
	s := strings.TrimSpace(string(id))
	if s == "" || s == "null" || strings.ContainsAny(s, ".eE") {
		return false
	}
	var n json.Number
	return json.Unmarshal(id, &n) == nil
}

// judgePagination: each nextCursor a server gives in its answer to the
// check's method (its parameter: tools/list, resources/list, ...) comes
// back, exactly, in the client's next request of that method to that
// server.
func judgePagination(run *clientRun, t *grading.Tally, c grading.Check) {
	method := c.Params["method"]
	for _, alias := range run.aliasOrder() {
		var pending string // a cursor not yet asked for
		var pendingFrom *sentMessage
		given := map[string]bool{}
		for _, m := range run.sentMessages() {
			if m.server != alias || m.method != method || !m.isRequest() {
				continue
			}
			var cursor *string
			if raw := m.param("cursor"); raw != nil {
				var given string
				if json.Unmarshal(raw, &given) == nil {
					cursor = &given
				}
			}
			if pending != "" || pendingFrom != nil {
				t.Test(c.ID)
				switch {
				case cursor == nil:
					f := grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("%s answered %s with nextCursor %q, and the client's next %s to it started over without a cursor", alias, method, pending, method), Expected: fmt.Sprintf(`a %s with params.cursor %q`, method, pending), Actual: grading.Clip(m.raw, 300)}
					run.gaveUpOn(pendingFrom, &f)
					t.Fail(f, c.ID)
				case *cursor != pending:
					t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("%s answered %s with nextCursor %q, and the client sent back cursor %q", alias, method, pending, *cursor), Expected: "the cursor exactly as the server gave it", Actual: grading.Clip(m.raw, 300)}, c.ID)
				}
			} else if cursor != nil && !given[*cursor] {
				t.Test(c.ID)
				t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the client sent %s a %s with cursor %q, which no answer of that server gave", alias, method, *cursor), Expected: "a cursor only from a nextCursor, passed back untouched", Actual: grading.Clip(m.raw, 300)}, c.ID)
			}
			pending, pendingFrom = "", nil
			if resp := run.responseTo(m); resp != nil {
				var res struct {
					NextCursor *string `json:"nextCursor"`
				}
				json.Unmarshal(resp["result"], &res)
				if res.NextCursor != nil {
					pending, pendingFrom = *res.NextCursor, m
					given[pending] = true
				}
			}
		}
		if pendingFrom != nil {
			t.Test(c.ID)
			f := grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("%s answered %s with nextCursor %q, and the client never asked for that page: it stopped after a page that said more were coming", alias, method, pending), Expected: method + " again with that cursor, until an answer has no nextCursor"}
			run.gaveUpOn(pendingFrom, &f)
			t.Fail(f, c.ID)
		}
	}
}

// gaveUpOn amends f, a failure to go on from the answer to m, when the
// client cancelled m (notifications/cancelled naming its id, on the same
// connection): the client's own timeout ran out before it took the answer
// in, which on a loaded machine can happen to an answer the server sent
// in time. The failure then rests on that deadline and is graded again at
// a larger time scale before it is charged.
func (r *clientRun) gaveUpOn(m *sentMessage, f *grading.Failure) {
	at, ok := r.cancelledAt(m)
	if !ok {
		return
	}
	f.What += fmt.Sprintf("; the client had cancelled that request (notifications/cancelled) %s after sending it, so its own timeout ran out before it read the answer",
		(at - m.at).Round(10*time.Millisecond))
	f.Deadline = true
}

// cancelledAt finds the client's notifications/cancelled for request m on
// m's own stdio connection, after m: when the client sent it.
func (r *clientRun) cancelledAt(m *sentMessage) (time.Duration, bool) {
	if m == nil || m.http || m.id == nil {
		return 0, false
	}
	for _, n := range r.sentMessages() {
		if n.server != m.server || n.conn != m.conn || n.at < m.at || n.method != "notifications/cancelled" {
			continue
		}
		if id := n.cancelledID(); id != nil && grading.JSONEqual(id, m.id) {
			return n.at, true
		}
	}
	return 0, false
}

// gaveUpUnhindered says, when the client cancelled a request
// (notifications/cancelled) that the lab neither held nor cut, which
// request that was: "" when it cancelled none. The lab answers every
// other request at once, so the client's own timeout ran out before it
// read an answer that was on its way, which a loaded machine causes as
// surely as a wrong program. Everything the scenario then failed or could
// not judge may follow from it (a server given up on has no tools to
// list), so it all rests on that deadline and is graded again at a larger
// time scale before it is charged (grading.Tally.RestOnDeadline).
//
// A stdio server the lab never heard from is the same fault seen earlier:
// the client starts the relay the configuration names, and on a loaded
// machine the client can give up on it, and end it, before the relay has
// even connected, leaving no request to see.
func (r *clientRun) gaveUpUnhindered() string {
	for _, s := range r.Scenario.Servers {
		if s.Transport != "stdio" || s.Down || r.StartErr != nil {
			continue
		}
		if !slices.ContainsFunc(r.Traffic, func(ev event.Record) bool { return ev.Server == s.Alias }) {
			return fmt.Sprintf("the lab never heard from the stdio server %s: the client did not start it, or gave it up before the relay it started had connected, which a loaded machine can cause, so what followed rests on that deadline", s.Alias)
		}
	}
	sent := r.sentMessages()
	for k, n := range sent {
		if n.method != "notifications/cancelled" {
			continue
		}
		cancelled := n.cancelledID()
		if cancelled == nil {
			continue
		}
		var m *sentMessage
		for _, q := range sent[:k] {
			if q.isRequest() && q.server == n.server && q.http == n.http && (q.http || q.conn == n.conn) && grading.JSONEqual(q.id, cancelled) {
				m = q
			}
		}
		if m == nil || r.hindered(m, n.at) {
			continue
		}
		return fmt.Sprintf("the client had cancelled its %s %s to %s (notifications/cancelled), a request the lab neither held nor cut, so the client's own timeout ran out before it read the answer, and what followed rests on that deadline",
			m.method, grading.CompactJSON(m.id), m.server)
	}
	return ""
}

// hindered reports whether the lab held or cut request m: a held or cut
// event on m's connection from when m came until until.
func (r *clientRun) hindered(m *sentMessage, until time.Duration) bool {
	for _, ev := range r.Traffic {
		if ev.Server == m.server && ev.Conn == m.conn && (ev.Kind == event.Held || ev.Kind == event.Cut) && ev.At >= m.at && ev.At <= until {
			return true
		}
	}
	return false
}

func (r *clientRun) aliasOrder() []string {
	var out []string
	for _, s := range r.Scenario.Servers {
		out = append(out, s.Alias)
	}
	return out
}

// judgeHeaders: every POST repeats the protocol version, the method and
// (for a call) the tool's name in its headers, as the server checks them.
func judgeHeaders(run *clientRun, t *grading.Tally, c grading.Check) {
	for _, m := range run.sentMessages() {
		if !m.http || !m.isRequest() {
			continue
		}
		msg, problem := wire.ParseRequest([]byte(m.raw))
		if problem != nil {
			continue
		}
		t.Test(c.ID)
		if e := mcphttp.CheckHeaders(m.ev.Header, msg); e != nil {
			t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("the POST of %s was refused with %d: %s (headers: %s)", m.describe(), e.Code, e.Message, event.HeaderSummary(m.ev.Header)),
				Expected: "MCP-Protocol-Version, Mcp-Method and, on tools/call, Mcp-Name, each equal to the body (a name that is not plain ASCII as =?base64?...?=)", Actual: grading.Clip(m.raw, 300)}, c.ID)
		}
	}
}

// listedTools gives, per server, the tool names its tools/list answers
// listed.
func (r *clientRun) listedTools() map[string]map[string]bool {
	listed := map[string]map[string]bool{}
	for _, ev := range r.Traffic {
		if ev.Kind != event.Answer {
			continue
		}
		var m struct {
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(ev.Text), &m) != nil {
			continue
		}
		for _, tool := range m.Result.Tools {
			if listed[ev.Server] == nil {
				listed[ev.Server] = map[string]bool{}
			}
			listed[ev.Server][tool.Name] = true
		}
	}
	return listed
}

// judgeOriginalName: a tools/call names the tool as its server listed it.
func judgeOriginalName(run *clientRun, t *grading.Tally, c grading.Check) {
	listed := run.listedTools()
	for _, m := range run.sentMessages() {
		if m.method != "tools/call" || listed[m.server] == nil {
			continue
		}
		name, ok := m.toolName()
		t.Test(c.ID)
		if !ok || !listed[m.server][name] {
			names := run.offeredTools(m.server)
			if names == nil {
				for n := range listed[m.server] {
					names = append(names, n)
				}
				sort.Strings(names)
			}
			t.Fail(grading.Failure{Scenario: run.Scenario.Name, Where: "call", What: fmt.Sprintf("the client called the tool %q on the %s server, which has no tool of that name (its tools, every page: %s)", name, m.server, strings.Join(names, ", ")), Expected: "the tool's own name, looked up in the client's table from the namespaced one", Actual: grading.Clip(m.raw, 300)}, c.ID)
		}
	}
}

// judgeTeardown: when stdin ends, the client ends every stdio server it
// started, then exits with status 0.
func judgeTeardown(run *clientRun, t *grading.Tally, c grading.Check) {
	if run.watcher != "" {
		// Whenever it happened, the bridge's end hides the teardown.
		t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: run.watcher, Expected: watcherExpected}, c.ID)
		return
	}
	if run.ClosedAt < 0 {
		return // it ended before the commands did: the answers' checks say so
	}
	t.Test(c.ID)
	switch {
	case run.Killed != "":
		// Killed for still running past the exit deadline.
		t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: run.Killed, Expected: "an exit with status 0 soon after stdin ends", Deadline: true}, c.ID)
	case !run.Exit.OK():
		t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("after its stdin closed, the client %s", run.Exit), Expected: "an exit with status 0"}, c.ID)
	case run.leftRunning != "":
		t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: "after the client exited, " + strings.TrimSuffix(run.leftRunning, "."), Expected: "each stdio server's stdin closed, a short wait, then the process killed, before the client exits"}, c.ID)
	case len(run.LeftOpen) > 0:
		t.Fail(grading.Failure{Scenario: run.Scenario.Name, What: fmt.Sprintf("after the client exited, %s it started %s still running: %s", grading.Pick(len(run.LeftOpen), "the stdio server", "the stdio servers"), grading.Pick(len(run.LeftOpen), "was", "were"), strings.Join(run.LeftOpen, ", ")), Expected: "each stdio server's stdin closed, a short wait, then the process killed, before the client exits",
			// Still open once the teardown grace had passed.
			Deadline: true}, c.ID)
	}
}
