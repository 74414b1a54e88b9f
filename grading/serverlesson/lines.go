package serverlesson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lab/wire"
)

// lineKind says what a correct server answers to a line.
type lineKind int

const (
	// lineRequest is answered with the line's own id, a string or an
	// integer: a request, or a bad line whose id can be copied.
	lineRequest lineKind = iota
	// lineNullID is answered with id null: a line that is not JSON, or not
	// a request and with no id that can be copied.
	lineNullID
	// lineNotification is never answered.
	lineNotification
)

// sentLine is one line a scenario sends, read the way a correct server
// reads it, with the expected answer and the answer that came tied to it.
type sentLine struct {
	n    int    // the line's number in what the scenario sends, from 1
	text string // the line, without its newline
	kind lineKind
	id   json.RawMessage // lineRequest: the id to answer with
	// rawID is the line's "id" member as written, when it has one that
	// cannot be copied (true, 1.5): a server that mistakes it for an id
	// answers with it.
	rawID json.RawMessage
	code  int // the error code a bad line deserves, or 0
	// write is the number of the write (from 1) that holds the line's end;
	// split reports that the line began in an earlier write, shared that
	// the same write holds the end of another line too.
	write         int
	split, shared bool
	pieces        int // how many writes hold a part of the line

	expect *scenario.Expectation // what a correct server answers, if the scenario says
	got    *answer               // the first answer tied to the line
	again  []*answer             // further answers with the line's id
}

// deservesAnswer reports whether a correct server answers the line.
func (l *sentLine) deservesAnswer() bool { return l.kind != lineNotification }

// describe names the line for a student: its number and its text.
func (l *sentLine) describe() string { return fmt.Sprintf("line %d %s", l.n, quote(l.text)) }

// sentLines splits what a scenario sends into its lines, notes which write
// holds the end of each, and ties each of the scenario's expected answers to
// the line that asks for it. Blank lines are left out: nothing answers them.
func sentLines(sc *scenario.Scenario) ([]*sentLine, error) {
	var data []byte
	var ends []int // ends[i] is the offset just past write i
	for _, st := range sc.Steps {
		if st.Kind == scenario.StepSend {
			data = append(data, st.Data...)
			ends = append(ends, len(data))
		}
	}
	writeOf := func(offset int) int {
		for i, e := range ends {
			if offset < e {
				return i + 1
			}
		}
		return len(ends)
	}
	var lines []*sentLine
	endsIn := map[int]int{} // write -> how many lines end in it
	for start, n := 0, 1; start < len(data); n++ {
		end := bytes.IndexByte(data[start:], '\n')
		last := start + end // the offset of the newline
		if end < 0 {
			last = len(data) - 1 // the last line, with no newline
			end = len(data) - start
		}
		text := bytes.TrimSuffix(data[start:start+end], []byte("\r"))
		if len(bytes.TrimSpace(text)) > 0 {
			l := &sentLine{n: n, text: string(text), write: writeOf(last)}
			l.split = writeOf(start) != l.write
			l.pieces = l.write - writeOf(start) + 1
			readLine(l, text)
			lines = append(lines, l)
			endsIn[l.write]++
		}
		start += end + 1
	}
	for _, l := range lines {
		l.shared = endsIn[l.write] > 1
	}
	if err := tieExpected(sc, lines); err != nil {
		return nil, err
	}
	return lines, nil
}

// readLine reads a line as a correct server does.
func readLine(l *sentLine, text []byte) {
	msg, problem := wire.ParseRequest(text)
	switch {
	case problem != nil && bytes.Equal(problem.ID, wire.Null):
		l.kind, l.code = lineNullID, problem.Err.Code
		var obj map[string]json.RawMessage
		if json.Unmarshal(text, &obj) == nil {
			if raw, ok := obj["id"]; ok && !bytes.Equal(grading.CompactJSON(raw), wire.Null) {
				l.rawID = grading.CompactJSON(raw)
			}
		}
	case problem != nil:
		l.kind, l.id, l.code = lineRequest, problem.ID, problem.Err.Code
	case msg.Kind == wire.KindNotification:
		l.kind = lineNotification
	default:
		l.kind, l.id = lineRequest, msg.ID
	}
}

// tieExpected gives each expected answer of the scenario the line that asks
// for it: the request with its id, or for an answer with id null a line that
// deserves one, the one it deserves by its error code first.
func tieExpected(sc *scenario.Scenario, lines []*sentLine) error {
	var nulls []*scenario.Expectation
	for i := range sc.Expect {
		e := &sc.Expect[i]
		if bytes.Equal(e.ID, wire.Null) {
			nulls = append(nulls, e)
			continue
		}
		tied := false
		for _, l := range lines {
			if l.kind == lineRequest && l.expect == nil && wire.SameID(l.id, e.ID) {
				l.expect, tied = e, true
				break
			}
		}
		if !tied {
			return fmt.Errorf("scenario %s, line %d: no line the scenario sends is a request with id %s (or it has two expected answers)", sc.Name, e.Line, e.ID)
		}
	}
	for pass := 0; pass < 2; pass++ {
		for _, l := range lines {
			if l.kind != lineNullID || l.expect != nil {
				continue
			}
			for i, e := range nulls {
				if e != nil && (pass == 1 || e.Result == nil && e.Code == l.code) {
					l.expect, nulls[i] = e, nil
					break
				}
			}
		}
	}
	for _, e := range nulls {
		if e != nil {
			return fmt.Errorf("scenario %s, line %d: more answers with id null are expected than lines that deserve one", sc.Name, e.Line)
		}
	}
	return nil
}

// answer is one line the server wrote to stdout, read leniently: any JSON
// object without a method that holds an id, a result or an error is taken
// for a response, even when a member is wrong, so that the check about
// that member (not the one about stdout) judges it.
type answer struct {
	stdioprobe.Answer
	n      int  // its line number on stdout, from 1
	shaped bool // a response, perhaps with a wrong member
	hasID  bool
	id     json.RawMessage // compact
	tied   *sentLine
}

func readAnswers(out []stdioprobe.Answer) []*answer {
	var as []*answer
	for i, a := range out {
		x := &answer{Answer: a, n: i + 1}
		if a.Msg != nil {
			x.shaped, x.hasID, x.id = true, true, a.Msg.ID
		} else {
			x.shaped, x.id, x.hasID = wire.ResponseShape([]byte(a.Line))
			if x.shaped && !x.hasID {
				// A response with no id member: read the rest, so a lesson
				// that asks for one (MCP 2026-07-28's parse error) can
				// judge it; one that asks for id null rejects it.
				var obj map[string]json.RawMessage
				if json.Unmarshal([]byte(a.Line), &obj) == nil && obj != nil {
					obj["id"] = wire.Null
					if b, err := json.Marshal(obj); err == nil {
						x.Msg, _ = wire.ParseResponse(b)
					}
				}
			}
		}
		as = append(as, x)
	}
	return as
}

// badLineError reports whether the answer is a parse or invalid-request
// error: what a server sends for a line it cannot read.
func (a *answer) badLineError() bool {
	return a.Msg != nil && a.Msg.Error != nil && (a.Msg.Error.Code == wire.CodeParseError || a.Msg.Error.Code == wire.CodeInvalidRequest)
}

// usableID reports whether the answer carries an id a request may have.
func (a *answer) usableID() bool { return a.hasID && wire.UsableID(a.id) }

// tieAnswers ties each response that came to the line it answers, and
// returns the responses no line asks for. A response with a string or
// integer id answers the request with that id (or the same id written as
// the other type, which ids-exact then judges). The rest are spread over
// the lines that deserve an answer with id null: first a response that
// repeats the line's uncopyable id, then one that is the expected answer,
// then one with id null, with no id, or with an id no request has.
func tieAnswers(lines []*sentLine, as []*answer) (extra []*answer) {
	var loose []*answer
	for _, a := range as {
		if !a.shaped {
			continue
		}
		if a.usableID() {
			if l := requestLine(lines, a.id); l != nil {
				if l.got == nil {
					l.got, a.tied = a, l
				} else {
					l.again, a.tied = append(l.again, a), l
				}
				continue
			}
		}
		loose = append(loose, a)
	}
	take := func(l *sentLine, ok func(*answer) bool) {
		if l.got != nil {
			return
		}
		for _, a := range loose {
			if a.tied == nil && ok(a) {
				l.got, a.tied = a, l
				return
			}
		}
	}
	nullLines := func(f func(*sentLine)) {
		for _, l := range lines {
			if l.kind == lineNullID {
				f(l)
			}
		}
	}
	nullLines(func(l *sentLine) {
		take(l, func(a *answer) bool { return l.rawID != nil && a.hasID && bytes.Equal(a.id, l.rawID) })
	})
	nullLines(func(l *sentLine) {
		take(l, func(a *answer) bool { return l.expect != nil && matches(*l.expect, a) })
	})
	nullLines(func(l *sentLine) { take(l, func(a *answer) bool { return a.hasID && bytes.Equal(a.id, wire.Null) }) })
	nullLines(func(l *sentLine) { take(l, func(a *answer) bool { return !a.hasID }) })
	nullLines(func(l *sentLine) { take(l, func(a *answer) bool { return true }) })
	for _, a := range loose {
		if a.tied == nil {
			extra = append(extra, a)
		}
	}
	return extra
}

// requestLine finds the request with this id, exactly or else loosely (the
// same id written as the other JSON type).
func requestLine(lines []*sentLine, id json.RawMessage) *sentLine {
	for _, l := range lines {
		if l.kind == lineRequest && wire.SameID(l.id, id) {
			return l
		}
	}
	for _, l := range lines {
		if l.kind == lineRequest && wire.LooseIDKey(l.id) == wire.LooseIDKey(id) {
			return l
		}
	}
	return nil
}

// nullCount says how many lines deserve an answer with id null and how
// many such answers came (the ones tied to those lines, plus more): "lines
// 1, 3 and 11 deserve an answer with id null: 3 expected, 2 came".
func nullCount(lines []*sentLine, more int) (expected, came int, text string) {
	var ns []string
	for _, l := range lines {
		if l.kind == lineNullID {
			expected++
			ns = append(ns, fmt.Sprint(l.n))
			if l.got != nil {
				came++
			}
		}
	}
	came += more
	if expected == 0 {
		return 0, came, fmt.Sprintf("no line deserves an answer with id null, and %d came", came)
	}
	which := "line " + ns[0] + " deserves"
	if expected > 1 {
		which = "lines " + strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1] + " deserve"
	}
	return expected, came, fmt.Sprintf("%s an answer with id null: %d expected, %d came", which, expected, came)
}

// fatal reports whether the line can end a server: it is not JSON, or it is
// not a valid request or notification. Servers built on real SDKs stop at
// such a line, so what comes after it is evidence they never read.
func (l *sentLine) fatal() bool {
	return l.code == wire.CodeParseError || l.code == wire.CodeInvalidRequest
}

// isolated enforces the scenario format's rule of evidence isolation: no
// check's evidence sits behind a line that can end a server. Such a line is
// the last line its scenario sends, and every request sent before it has
// its answer awaited (an await step) before the write that holds it, so a
// server that stops there loses that line's check and nothing else.
// ids name the checks the judges serve, for the message.
func isolated(sc *scenario.Scenario, lines []*sentLine, ids served) error {
	type write struct {
		step    scenario.Step
		awaited map[string]bool // ids awaited by explicit steps before it
	}
	var writes []write
	awaited := map[string]bool{}
	for _, st := range sc.Steps {
		switch {
		case st.Kind == scenario.StepSend:
			seen := map[string]bool{}
			for k := range awaited {
				seen[k] = true
			}
			writes = append(writes, write{step: st, awaited: seen})
		case st.Kind == scenario.StepAwait && !st.Implicit:
			awaited[wire.LooseIDKey(st.ID)] = true
		}
	}
	stepLine := func(l *sentLine) int {
		if l.write >= 1 && l.write <= len(writes) {
			return writes[l.write-1].step.Line
		}
		return 0
	}
	for _, f := range lines {
		if !f.fatal() {
			continue
		}
		why := "is not JSON"
		if f.code == wire.CodeInvalidRequest {
			why = "is not a valid request"
		}
		head := fmt.Sprintf("scenario %s: sent line %d %s (sent by the step on line %d) %s, and a server may stop at such a line",
			sc.Name, f.n, quote(f.text), stepLine(f), why)
		for _, l := range lines {
			switch {
			case l.n > f.n:
				return fmt.Errorf("%s; but %s comes after it, so a server that stops there also loses %s: "+
					"send a line that can end a server last, in a scenario of its own", head, evidenceOf(l), checksOf(l, ids))
			case l.n < f.n && l.kind == lineRequest && (l.write == f.write || !writes[f.write-1].awaited[wire.LooseIDKey(l.id)]):
				return fmt.Errorf("%s; but %s is sent before it and its answer is not awaited first, so a server that stops there may also lose %s: "+
					"await the answer to id %s (\"await %s within 5s\") before the step that sends the line that can end a server, or move that line to a scenario of its own",
					head, evidenceOf(l), checksOf(l, ids), l.id, l.id)
			}
		}
	}
	return nil
}

// evidenceOf names a line as evidence: its number, its text and, when the
// scenario expects an answer to it, the expect line.
func evidenceOf(l *sentLine) string {
	s := "sent line " + fmt.Sprint(l.n) + " " + quote(l.text)
	if l.expect != nil {
		s += fmt.Sprintf(" (expect line %d)", l.expect.Line)
	}
	return s
}

// checksOf names the checks a line is evidence for: its tagged checks, or
// those of the lesson's judges that read such a line.
func checksOf(l *sentLine, ids served) string {
	switch {
	case l.expect != nil:
		return "the evidence for " + strings.Join(l.expect.Checks, ", ")
	case l.kind == lineNotification && ids.silent != "":
		return "the evidence for " + ids.silent
	case l.kind == lineNotification:
		return "the evidence that notifications go unanswered"
	}
	var judged []string
	for _, id := range []string{ids.answersOnce, ids.idsExact} {
		if id != "" {
			judged = append(judged, id)
		}
	}
	if len(judged) == 0 {
		return "the evidence for the checks judged from the traffic"
	}
	return "the evidence for the checks judged from the traffic (" + strings.Join(judged, ", ") + ")"
}
