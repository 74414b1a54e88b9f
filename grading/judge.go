package grading

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/wire"
)

// failure is one piece of evidence against a check.
type failure struct {
	scenario string
	what     string // what happened, in a sentence
	expected string // what a correct server does
	actual   string // what this server did, when it is a line of output
}

// tally collects, per check id, whether any scenario tested it and what
// went wrong.
type tally struct {
	tested   map[string]bool
	failures map[string][]failure
}

func newTally() *tally {
	return &tally{tested: map[string]bool{}, failures: map[string][]failure{}}
}

func (t *tally) test(checks ...string) {
	for _, c := range checks {
		t.tested[c] = true
	}
}

func (t *tally) fail(f failure, checks ...string) {
	for _, c := range checks {
		t.tested[c] = true
		t.failures[c] = append(t.failures[c], f)
	}
}

// sentLines is what the scenario sent, read the way a correct server reads
// it: the requests and their ids, how many lines deserve an answer with id
// null, and how many notifications there were.
type sentLines struct {
	requestIDs    []json.RawMessage // ids of requests and of bad lines whose id is readable
	nullAnswers   int               // lines whose answer has id null
	notifications int
}

func readSent(data []byte) sentLines {
	var s sentLines
	f := wire.NewFramer(bytes.NewReader(data))
	for {
		line, err := f.Next()
		if errors.Is(err, io.EOF) {
			return s
		}
		if err != nil {
			s.nullAnswers++
			continue
		}
		msg, problem := wire.ParseRequest(line)
		switch {
		case problem != nil && bytes.Equal(problem.ID, wire.Null):
			s.nullAnswers++
		case problem != nil:
			s.requestIDs = append(s.requestIDs, problem.ID)
		case msg.Kind == wire.KindNotification:
			s.notifications++
		default:
			s.requestIDs = append(s.requestIDs, msg.ID)
		}
	}
}

// judge weighs one scenario's run and adds what it found to t.
func judge(run *client.Run, sc *scenario.Scenario, t *tally) {
	name := sc.Name
	ctxNote := runContext(run)
	withCtx := func(s string) string {
		if ctxNote == "" {
			return s
		}
		return s + "; " + ctxNote
	}
	sent := readSent(sc.Sent())

	// stdout.messages-only: judged only when there was output to judge.
	if len(run.Answers) > 0 {
		t.test(checkMessagesOnly)
	}
	var notMessages []string
	var valid []client.Answer
	var noID []client.Answer // response-like objects that lack an id
	for i, a := range run.Answers {
		if a.Msg != nil {
			valid = append(valid, a)
			continue
		}
		notMessages = append(notMessages, fmt.Sprintf("stdout line %d, %s: %s", i+1, quote(a.Line), a.Problem))
		if looksLikeAnswerWithoutID(a.Line) {
			noID = append(noID, a)
		}
	}
	if len(notMessages) > 0 {
		t.fail(failure{scenario: name,
			what:     fmt.Sprintf("%d line(s) on stdout are not JSON-RPC responses: %s", len(notMessages), listSome(notMessages, 3)),
			expected: "only JSON-RPC response objects on stdout, one per line",
			actual:   run.Answers[indexOfFirstBad(run.Answers)].Line,
		}, checkMessagesOnly)
	}

	// Group the answers.
	var nulls []client.Answer
	byKey := map[string][]client.Answer{}
	var keysInOrder []string
	for _, a := range valid {
		if bytes.Equal(a.Msg.ID, wire.Null) {
			nulls = append(nulls, a)
			continue
		}
		k := wire.LooseIDKey(a.Msg.ID)
		if _, ok := byKey[k]; !ok {
			keysInOrder = append(keysInOrder, k)
		}
		byKey[k] = append(byKey[k], a)
	}

	// Orders.
	arrival := map[string]time.Duration{}
	for k, as := range byKey {
		arrival[k] = as[0].At
	}
	for _, o := range sc.Orders {
		t.test(o.Checks...)
		first, okFirst := arrival[wire.LooseIDKey(o.First)]
		then, okThen := arrival[wire.LooseIDKey(o.Then)]
		exp := fmt.Sprintf("the answer to id %s before the answer to id %s", o.First, o.Then)
		switch {
		case !okFirst && !okThen:
			t.fail(failure{scenario: name, expected: exp,
				what: withCtx(fmt.Sprintf("id %s got no answer while id %s was still in flight (neither was answered while the grader waited): a server that handles one request at a time cannot answer id %s until id %s is done",
					o.First, o.Then, o.First, o.Then))}, o.Checks...)
		case !okFirst:
			t.fail(failure{scenario: name, expected: exp,
				what: withCtx(fmt.Sprintf("id %s was not answered in time, while id %s was still being handled: the server handles one request at a time", o.First, o.Then))}, o.Checks...)
		case okThen && then < first:
			t.fail(failure{scenario: name, expected: exp,
				what: fmt.Sprintf("id %s was answered at %v, before id %s at %v", o.Then, then.Round(time.Millisecond), o.First, first.Round(time.Millisecond))}, o.Checks...)
		}
	}

	// Expected answers.
	usedNull := make([]bool, len(nulls))
	for _, e := range sc.Expect {
		t.test(e.Checks...)
		if bytes.Equal(e.ID, wire.Null) {
			found := false
			for i, a := range nulls {
				if !usedNull[i] && matches(e, a.Msg) {
					usedNull[i], found = true, true
					break
				}
			}
			if !found {
				t.fail(failure{scenario: name,
					what:     withCtx(fmt.Sprintf("no answer with id null and %s came (the answers with id null were: %s)", describeExpected(e), listAnswers(nulls))),
					expected: e.Text,
					actual:   "(nothing)",
				}, e.Checks...)
			}
			continue
		}
		got := byKey[wire.LooseIDKey(e.ID)]
		if len(got) == 0 {
			t.fail(failure{scenario: name,
				what:     withCtx(fmt.Sprintf("no answer to the request with id %s came", e.ID)),
				expected: e.Text,
				actual:   "(nothing)",
			}, e.Checks...)
			continue
		}
		if !matches(e, got[0].Msg) {
			t.fail(failure{scenario: name,
				what:     fmt.Sprintf("the answer to id %s is wrong: it should have %s", e.ID, describeExpected(e)),
				expected: e.Text,
				actual:   got[0].Line,
			}, e.Checks...)
		}
	}

	// ids.exact
	requestByKey := map[string]json.RawMessage{}
	for _, id := range sent.requestIDs {
		requestByKey[wire.LooseIDKey(id)] = id
	}
	if len(valid) > 0 {
		t.test(checkIDsExact)
	}
	for _, k := range keysInOrder {
		a := byKey[k][0]
		want, ok := requestByKey[k]
		if ok && !wire.SameID(want, a.Msg.ID) {
			t.fail(failure{scenario: name,
				what:     fmt.Sprintf("the answer to the request with id %s (%s) carries id %s (%s)", want, idType(want), a.Msg.ID, idType(a.Msg.ID)),
				expected: fmt.Sprintf("id %s, exactly as sent", want),
				actual:   a.Line,
			}, checkIDsExact)
		}
	}

	// answers.once and notifications.silent
	t.test(checkAnswersOnce)
	for _, k := range keysInOrder {
		as := byKey[k]
		if _, ok := requestByKey[k]; !ok {
			t.fail(failure{scenario: name,
				what:   fmt.Sprintf("an answer came with id %s, but no request had that id", as[0].Msg.ID),
				actual: as[0].Line}, checkAnswersOnce)
			continue
		}
		if len(as) > 1 {
			t.fail(failure{scenario: name,
				what:     fmt.Sprintf("the request with id %s was answered %d times", as[0].Msg.ID, len(as)),
				expected: "exactly one answer",
				actual:   as[1].Line}, checkAnswersOnce)
		}
	}
	// A server that said nothing, or died early, has not shown that it
	// keeps quiet about notifications: it was never asked properly.
	if sent.notifications > 0 && len(valid) > 0 && !run.EarlyExit {
		t.test(checkSilent)
	}
	var extraNull []client.Answer
	for i, a := range nulls {
		if !usedNull[i] {
			extraNull = append(extraNull, a)
		}
	}
	var errorsExtra, otherExtra []client.Answer
	for _, a := range extraNull {
		if a.Msg.Error != nil && (a.Msg.Error.Code == wire.CodeParseError || a.Msg.Error.Code == wire.CodeInvalidRequest) {
			errorsExtra = append(errorsExtra, a)
		} else {
			otherExtra = append(otherExtra, a)
		}
	}
	if len(nulls) > sent.nullAnswers && len(errorsExtra) > 0 {
		t.fail(failure{scenario: name,
			what: fmt.Sprintf("%d answers with id null came, but only %d line(s) deserved one; the extra ones: %s",
				len(nulls), sent.nullAnswers, listAnswers(errorsExtra)),
			expected: fmt.Sprintf("%d answer(s) with id null", sent.nullAnswers),
			actual:   errorsExtra[0].Line}, checkAnswersOnce)
	}
	otherExtra = append(otherExtra, noID...)
	if len(otherExtra) > 0 {
		check := checkAnswersOnce
		what := fmt.Sprintf("%d answer(s) with no usable id came that no request asked for: %s", len(otherExtra), listAnswers(otherExtra))
		if sent.notifications > 0 {
			check = checkSilent
			what = fmt.Sprintf("the scenario sent %d notification(s), and %d answer(s) with id null or no id came back that only notifications can have caused: %s",
				sent.notifications, len(otherExtra), listAnswers(otherExtra))
		}
		t.fail(failure{scenario: name, what: what, expected: "no answer at all to a notification", actual: otherExtra[0].Line}, check)
	}
	if sc.Ends() == scenario.StepClose {
		var missing []string
		for _, id := range sent.requestIDs {
			if len(byKey[wire.LooseIDKey(id)]) == 0 {
				missing = append(missing, string(id))
			}
		}
		if len(missing) > 0 {
			t.fail(failure{scenario: name,
				what:     withCtx(fmt.Sprintf("%d request(s) got no answer at all: id %s", len(missing), strings.Join(missing, ", id "))),
				expected: "one answer to every request before the server exits"}, checkAnswersOnce)
		}
	}

	// lifecycle.exit-on-eof
	if sc.Ends() == scenario.StepClose {
		t.test(checkExitOnEOF)
		switch {
		case run.EarlyExit && !run.Closed:
			t.fail(failure{scenario: name, what: withCtx("the server ended before its stdin was closed"),
				expected: "the server keeps running until stdin closes, then exits with status 0"}, checkExitOnEOF)
		case run.OutputCapped:
			t.fail(failure{scenario: name, what: withCtx("the server was stopped for writing too much output before it could exit"),
				expected: "exit with status 0 soon after stdin closes"}, checkExitOnEOF)
		case !run.ExitedAfterClose:
			t.fail(failure{scenario: name, what: withCtx("the server did not exit after its stdin closed"),
				expected: "exit with status 0 soon after stdin closes"}, checkExitOnEOF)
		case !run.Exit.OK():
			t.fail(failure{scenario: name, what: fmt.Sprintf("after its stdin closed, the server %s", run.Exit),
				expected: "exit with status 0"}, checkExitOnEOF)
		}
	}
}

// runContext says in a sentence what cut a run short, if anything.
func runContext(run *client.Run) string {
	// No times here: a regrade of the same server must give the same words.
	switch {
	case run.OutputCapped:
		return "the server was stopped for writing more output than the grader accepts"
	case run.EarlyExit:
		return fmt.Sprintf("the server %s before the scenario was over", run.Exit)
	case run.Killed && run.Closed:
		return fmt.Sprintf("the server was stopped because %s", run.KillReason)
	case len(run.AwaitMissed) > 0:
		return fmt.Sprintf("the grader waited for the answer to id %s in vain", strings.Join(run.AwaitMissed, ", id "))
	}
	return ""
}

// matches reports whether an answer is the expected one: the same result,
// or an error with the same code.
func matches(e scenario.Expectation, m *wire.Message) bool {
	if e.Result != nil {
		return m.Result != nil && jsonEqual(e.Result, m.Result)
	}
	return m.Error != nil && m.Error.Code == e.Code
}

func jsonEqual(a, b json.RawMessage) bool {
	decode := func(raw json.RawMessage) (any, bool) {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		return v, d.Decode(&v) == nil
	}
	va, ok1 := decode(a)
	vb, ok2 := decode(b)
	return ok1 && ok2 && reflect.DeepEqual(va, vb)
}

func describeExpected(e scenario.Expectation) string {
	if e.Result != nil {
		return "the result " + string(e.Result)
	}
	return fmt.Sprintf("error %d (%s)", e.Code, wire.CodeName(e.Code))
}

func idType(id json.RawMessage) string {
	if b := bytes.TrimSpace(id); len(b) > 0 && b[0] == '"' {
		return "a string"
	}
	return "a number"
}

func looksLikeAnswerWithoutID(line string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &obj) != nil || obj == nil {
		return false
	}
	_, hasID := obj["id"]
	_, hasMethod := obj["method"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	return !hasID && !hasMethod && (hasResult || hasError)
}

func indexOfFirstBad(as []client.Answer) int {
	for i, a := range as {
		if a.Msg == nil {
			return i
		}
	}
	return 0
}

func listAnswers(as []client.Answer) string {
	if len(as) == 0 {
		return "none"
	}
	var s []string
	for _, a := range as {
		s = append(s, quote(a.Line))
	}
	return listSome(s, 3)
}

func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}

// quote shows a line of output in a message: printable, and cut when long.
func quote(line string) string {
	const limit = 120
	s := client.Printable(line)
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return "`" + s + "`"
}
