package serverlesson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lab/wire"
)

// evidence is what one scenario's run shows, with every answer that came
// tied to the line that asked for it.
type evidence struct {
	sc      *scenario.Scenario
	run     *stdioprobe.Run
	lines   []*sentLine
	answers []*answer
	extra   []*answer // responses no line asks for
	note    string    // what cut the run short, if anything
	// ids are the checks of the lesson's catalogue the judges serve.
	ids served
	// lost are the lines whose missing answer a framing judge is charged
	// with (by the judge's name), and fragments the extra answers their
	// pieces got (a server that read a piece of a line as a line): one
	// fault, one check, so no other check is charged with either.
	lost      map[*sentLine]string
	fragments map[*answer]bool
	// merged are the lost lines that came alone in their writes and were
	// read with a neighbouring write as one (see mergedWithNeighbour), in
	// the order they were sent; many-per-chunk is charged with them.
	merged []*sentLine
	// misread ties a bad line whose id can be copied, left without an
	// answer of its own, to the bad-line error with id null (or none) the
	// server wrote for it: the wrong answer to that line, which the line's
	// own check is charged with, not an answer no line asks for.
	misread map[*sentLine]*answer
	// misreadAnswers are the answers misread holds.
	misreadAnswers map[*answer]bool
}

// newEvidence reads one run, for a lesson whose judges serve the checks
// ids. When the lesson judges framing, lines lost to framing are charged to
// a framing check alone.
func newEvidence(run *stdioprobe.Run, sc *scenario.Scenario, ids served) (*evidence, error) {
	lines, err := sentLines(sc)
	if err != nil {
		return nil, err
	}
	ev := &evidence{sc: sc, run: run, ids: ids, lines: lines, answers: readAnswers(run.Answers), note: runContext(run),
		lost: map[*sentLine]string{}, fragments: map[*answer]bool{},
		misread: map[*sentLine]*answer{}, misreadAnswers: map[*answer]bool{}}
	ev.extra = tieAnswers(lines, ev.answers)
	if ids.framed() {
		ev.chargeFraming()
	}
	ev.tieMisread()
	return ev, nil
}

// tieMisread finds the wrong answers that came with no id to bad lines whose
// id can be copied: a line such as {"jsonrpc":"2.0","id":8,"method":42}
// deserves -32600 with id 8, and a server that cannot read its id answers
// it with a parse or invalid-request error and id null (or no id). Such an
// error is the server's answer to that line, so the line's own check is
// charged with it, once, and answers-once (an answer no line asks for) is
// not. The errors are given to those lines in the order both came; a line
// a framing check is charged with is left to it, and so are the pieces its
// errors answered.
func (ev *evidence) tieMisread() {
	var waiting []*sentLine
	for _, l := range ev.lines {
		if l.kind == lineRequest && l.code != 0 && l.got == nil && ev.lost[l] == "" {
			waiting = append(waiting, l)
		}
	}
	for _, a := range ev.extra {
		if len(waiting) == 0 {
			return
		}
		if ev.fragments[a] || !a.badLineError() || a.hasID && !bytes.Equal(a.id, wire.Null) {
			continue
		}
		ev.misread[waiting[0]], ev.misreadAnswers[a] = a, true
		waiting = waiting[1:]
	}
}

// answeredAround reports whether the server answered a line just before l
// that ends in the write l ends in, and a line just after l that begins in
// that write: it found the newline on each side of l, so it framed l right,
// and if l got no answer, that is not for many-per-chunk to say.
// (A line between two it answered is the only such case that can be told
// apart: a server that drops what follows the first line of a write, or
// precedes its last, answers no line on one side of the lines it loses.)
func (ev *evidence) answeredAround(l *sentLine) bool {
	i := -1
	for k, m := range ev.lines {
		if m == l {
			i = k
		}
	}
	if i <= 0 || i+1 >= len(ev.lines) {
		return false
	}
	before, after := ev.lines[i-1], ev.lines[i+1]
	return before.write == l.write && before.got != nil &&
		after.write-after.pieces+1 == l.write && after.got != nil
}

// chargeFraming finds the lines a framing check is charged with: each line
// that deserves an answer, got none, and was cut across writes
// (split-message) or, if not, ended in a write that holds the end of
// another line (many-per-chunk), unless the server answered the
// lines on both sides of it in that write (it found both its newlines, so
// it lost the line for another reason, which the line's own check or
// answers-once is charged with). Each is charged to one check only,
// and the extra answers that came (at most one per piece of such a line:
// bad-line errors, or answers with an id no request has) are the answers its
// pieces got. Nothing is charged when the server
// answered no line of the scenario (it showed nothing about how it frames)
// or ended by itself (its lost lines are lost to the exit).
func (ev *evidence) chargeFraming() {
	answered := false
	for _, l := range ev.lines {
		answered = answered || l.got != nil
	}
	if !answered || ev.run.EarlyExit || ev.run.ExitedAfterClose && !ev.run.Exit.OK() {
		return
	}
	pieces := 0
	for _, l := range ev.lines {
		if !l.deservesAnswer() || l.got != nil {
			continue
		}
		switch {
		case l.split:
			ev.lost[l] = judgeNameSplitMessage
		case l.shared && !ev.answeredAround(l):
			ev.lost[l] = judgeNameManyPerChunk
		case ev.mergedWithNeighbour(l):
			ev.lost[l] = judgeNameManyPerChunk
			ev.merged = append(ev.merged, l)
		default:
			continue
		}
		pieces += l.pieces
	}
	for _, a := range ev.extra {
		// A piece read as a line gets a parse or invalid-request error; a
		// line read with a piece mangled (a character cut across writes and
		// decoded on its own) may get an answer whose id no request has.
		if pieces > 0 && (a.badLineError() && (!a.hasID || bytes.Equal(a.id, wire.Null)) || a.usableID()) {
			ev.fragments[a] = true
			pieces--
		}
	}
}

// mergedWithNeighbour reports whether l, a line that came alone in its
// write and got no answer, was most likely read together with the write
// before or after it: that write too lost every line that deserves an
// answer, and the server wrote an error with no id (or id null), the
// answer a server gives a read it took for one line and could not parse.
// A pipe may hand its reader two writes at once, and does when the reader
// falls behind (a busy machine): a server that takes each read for one
// line then loses both lines to one bad-line error. That is the fault
// many-per-chunk names, so the line is charged to it rather than to
// answers-once, and the verdict does not hang on how busy the machine
// was.
func (ev *evidence) mergedWithNeighbour(l *sentLine) bool {
	if l.split || l.shared {
		return false
	}
	noID := false
	for _, a := range ev.extra {
		noID = noID || a.badLineError() && (!a.hasID || bytes.Equal(a.id, wire.Null))
	}
	return noID && (ev.writeLost(l.write-1) || ev.writeLost(l.write+1))
}

// writeLost reports whether write w holds the end of at least one line
// that deserves an answer, and none of those lines got one.
func (ev *evidence) writeLost(w int) bool {
	lost := false
	for _, l := range ev.lines {
		if l.write != w || !l.deservesAnswer() {
			continue
		}
		if l.got != nil {
			return false
		}
		lost = true
	}
	return lost
}

// withNote adds what cut the run short to a sentence about a missing answer.
func (ev *evidence) withNote(s string) string {
	if ev.note == "" {
		return s
	}
	return s + "; " + ev.note
}

func (ev *evidence) fail(t *grading.Tally, f grading.Failure, checks ...string) {
	f.Scenario = ev.sc.Name
	if ev.run.Paced && !ev.run.EarlyExit && !ev.run.OutputCapped {
		// The server left a chunk unread past the drain deadline, and the
		// later chunks went by the schedule: on a slow machine two of them
		// may have reached it in one read. What it answered then rests on
		// that deadline, so the failure is confirmed before it is charged.
		f.Deadline = true
	}
	t.Fail(f, checks...)
}

// deadlinePassed reports whether what the server did not do (an answer,
// an exit) may be the machine's slowness rather than the server's fault:
// a deadline of the run ran out and the server was stopped for it, or a
// scenario's own await waited in vain, or the server never exited. A
// server that ended by itself, or flooded its output, lost what it did not
// do to that, with no deadline to blame; and one that exited by itself
// after its stdin closed had all the time it wanted to answer first.
func (ev *evidence) deadlinePassed() bool {
	run := ev.run
	if !run.DeadlinePassed || run.EarlyExit || run.OutputCapped {
		return false
	}
	return run.Killed || !run.ExitedAfterClose || len(explicitMisses(run)) > 0
}

// missed is f, a failure about something that did not come (an answer, an
// exit), marked as resting on a deadline when one passed in the run (see
// grading.Failure.Deadline).
func (ev *evidence) missed(f grading.Failure) grading.Failure {
	f.Deadline = ev.deadlinePassed()
	return f
}

// missingRequests lists the requests that got no answer and that no other
// check is charged with: not a line a framing check is charged with, nor
// one the scenario expects an answer to (the expected answer's checks are
// charged with it), nor one that got a wrong answer with id null.
func (ev *evidence) missingRequests() []*sentLine {
	var out []*sentLine
	for _, l := range ev.lines {
		if l.kind == lineRequest && l.got == nil && ev.lost[l] == "" && l.expect == nil && ev.misread[l] == nil {
			out = append(out, l)
		}
	}
	return out
}

// closesEarly reports whether the scenario closes stdin without waiting
// for the answers still due: the one place where what a server does with
// requests in flight at end of input is judged.
func (ev *evidence) closesEarly() bool {
	for _, st := range ev.sc.Steps {
		if st.Kind == scenario.StepClose {
			return st.Early
		}
	}
	return false
}

// endedOnFatalLine reports whether the server ended by itself on the line
// that can end a server, which the scenario sends last (see isolated), left
// unanswered: that line's check is charged with the exit, and no other.
func (ev *evidence) endedOnFatalLine() bool {
	if len(ev.lines) == 0 {
		return false
	}
	last := ev.lines[len(ev.lines)-1]
	exited := ev.run.EarlyExit || ev.run.ExitedAfterClose && !ev.run.Exit.OK()
	return exited && last.fatal() && last.got == nil && last.expect != nil
}

// judgeExpected judges the checks that scenarios tag on expected answers:
// each on the answer tied to the line that asks for it, and on nothing
// else. A missing answer counts against them too (the line did not get the
// answer the check asks for), with what cut the run short, and against them
// alone: one fault, one check, so judgeOnce does not count it again. A bad
// line answered with id null where its own id can be read got a wrong
// answer, which its checks are charged with, and nothing else.
func judgeExpected(ev *evidence, t *grading.Tally) {
	for _, l := range ev.lines {
		if l.expect == nil || ev.lost[l] != "" {
			// A line lost to framing is charged to its framing check only.
			continue
		}
		e := *l.expect
		t.Test(e.Checks...)
		want := fmt.Sprintf("%s should get %s", l.describe(), describeExpected(e))
		where := fmt.Sprintf("line %d", l.n)
		switch {
		case l.got == nil && ev.misread[l] != nil:
			a := ev.misread[l]
			what := fmt.Sprintf("%s; it got %s instead, which does not carry the line's id %s: the id of this bad line can be read, so its error carries it",
				want, quote(a.Line), l.id)
			ev.fail(t, grading.Failure{Where: where, Line: l.text, What: what, Expected: e.Text, Actual: a.Line}, e.Checks...)
		case l.got == nil:
			what := want + "; nothing came for it"
			if l.kind == lineNullID {
				if exp, came, count := nullCount(ev.lines, 0); exp > 1 && came < exp {
					what += " (" + count + ")"
				}
			}
			ev.fail(t, ev.missed(grading.Failure{Where: where, Line: l.text, What: ev.withNote(what), Expected: e.Text, Actual: "(nothing)"}), e.Checks...)
		case !matches(e, l.got):
			what := fmt.Sprintf("%s; it got %s", want, quote(l.got.Line))
			if l.got.Msg == nil && l.got.Problem != "" {
				what += ", which is not a well-formed response: " + l.got.Problem
			}
			ev.fail(t, grading.Failure{Where: where, Line: l.text, What: what, Expected: e.Text, Actual: l.got.Line}, e.Checks...)
		}
	}
}

// judgeOrders judges the order lines of a scenario: the answer to one id
// must arrive before the answer to another.
func judgeOrders(ev *evidence, t *grading.Tally) {
	arrival := map[string]time.Duration{}
	for _, l := range ev.lines {
		if l.kind == lineRequest && l.got != nil {
			arrival[wire.LooseIDKey(l.id)] = l.got.At
		}
	}
	for _, o := range ev.sc.Orders {
		t.Test(o.Checks...)
		first, okFirst := arrival[wire.LooseIDKey(o.First)]
		then, okThen := arrival[wire.LooseIDKey(o.Then)]
		exp := fmt.Sprintf("the answer to id %s before the answer to id %s", o.First, o.Then)
		where := fmt.Sprintf("the order of ids %s and %s", o.First, o.Then)
		switch {
		case !okFirst && !okThen:
			ev.fail(t, ev.missed(grading.Failure{Expected: exp, Where: where,
				What: ev.withNote(fmt.Sprintf("id %s got no answer while id %s was still in flight (neither was answered while the grader waited): a server that handles one request at a time cannot answer id %s until id %s is done",
					o.First, o.Then, o.First, o.Then))}), o.Checks...)
		case !okFirst:
			ev.fail(t, ev.missed(grading.Failure{Expected: exp, Where: where,
				What: ev.withNote(fmt.Sprintf("id %s was not answered in time, while id %s was still being handled: the server handles one request at a time", o.First, o.Then))}), o.Checks...)
		case okThen && then < first:
			ev.fail(t, grading.Failure{Expected: exp, Where: where,
				What: fmt.Sprintf("id %s was answered at %v, before id %s at %v", o.Then, then.Round(time.Millisecond), o.First, first.Round(time.Millisecond))}, o.Checks...)
		}
	}
}

// judgeFraming judges framing alone: every line that ended in a write
// holding the end of another line (many-per-chunk), and every line
// cut across writes (split-message), got an answer of its own,
// whatever that answer says; a notification needs none. What the answer
// says is for the checks about codes, ids and results.
func judgeFraming(ev *evidence, t *grading.Tally) {
	type group struct {
		judge, check string
		lines        []*sentLine
	}
	split := group{judge: judgeNameSplitMessage, check: ev.ids.splitMessage}
	shared := group{judge: judgeNameManyPerChunk, check: ev.ids.manyPerChunk}
	for _, l := range ev.lines {
		if !l.deservesAnswer() {
			continue
		}
		// A line cut across writes is judged by split-message
		// alone, even when its last piece shares a write with other lines:
		// one lost line, one check.
		switch {
		case l.split:
			split.lines = append(split.lines, l)
		case l.shared:
			shared.lines = append(shared.lines, l)
		}
	}
	// A server that answered no line of the scenario has shown nothing about
	// how it frames; and once a server has ended by itself (a crash), the
	// lines it never answered are lost to the exit, which the lifecycle and
	// answer checks judge.
	answered := false
	for _, l := range ev.lines {
		answered = answered || l.got != nil
	}
	if !answered {
		return
	}
	for _, g := range []group{split, shared} {
		if len(g.lines) == 0 && (g.judge != judgeNameManyPerChunk || len(ev.merged) == 0) {
			continue
		}
		t.Test(g.check)
		var lost []string
		quoted := "" // the first line the message quotes
		nullLost := false
		for _, l := range g.lines {
			// chargeFraming decided which lines this check is charged with.
			if ev.lost[l] == g.judge {
				lost = append(lost, l.describe())
				nullLost = nullLost || l.kind == lineNullID
				if len(lost) == 1 {
					quoted = l.text
				}
			}
		}
		var merged []string
		if g.judge == judgeNameManyPerChunk {
			for _, l := range ev.merged {
				merged = append(merged, l.describe())
				if len(lost) == 0 && len(merged) == 1 {
					quoted = l.text
				}
			}
		}
		if len(lost) == 0 && len(merged) == 0 {
			continue
		}
		how := "that ended in a write holding the end of another line"
		if g.judge == judgeNameSplitMessage {
			how = "that were cut across two or more writes"
		}
		var what string
		switch {
		case len(lost) == 0:
		case len(g.lines) == 1:
			how = strings.Replace(strings.Replace(how, "that were", "that was", 1), "that ended", "that ends", 1)
			what = fmt.Sprintf("the one line %s got no answer of its own: %s", how, lost[0])
		default:
			what = fmt.Sprintf("%d of the %d lines %s got no answer of their own: %s", len(lost), len(g.lines), how, grading.ListSome(lost, 3))
		}
		if len(merged) > 0 {
			if what != "" {
				what += ". Also, "
			}
			what += mergedWhat(merged)
		}
		if nullLost {
			_, _, count := nullCount(ev.lines, 0)
			what += " (" + count + ")"
		}
		ev.fail(t, ev.missed(grading.Failure{What: ev.withNote(what), Line: quoted,
			Expected: "one answer for each line that is a request or a bad line, whatever the answer says, and none for a notification"}), g.check)
	}
}

// mergedWhat says what happened to lines charged to many-per-chunk
// though each came in a write of its own (evidence.merged).
func mergedWhat(lines []string) string {
	n := fmt.Sprintf("%d lines that each came in a write of their own", len(lines))
	if len(lines) == 1 {
		n = "1 line that came in a write of its own"
	}
	return n + " got no answer, next to a write whose lines got none either, and the server wrote an error with no id: " +
		"it read two writes that reached it together as one line (a pipe hands over what is waiting in one read, which happens when the reader falls behind): " +
		grading.ListSome(lines, 3)
}

// judgeMessagesOnly judges messages-only: every stdout line is a
// JSON-RPC response object. A response with a wrong member (an id that is
// not an id, no "jsonrpc") is still one; the checks about ids and answers
// judge its members.
func judgeMessagesOnly(ev *evidence, t *grading.Tally) {
	notKept := ev.run.StdoutNotKept
	if len(ev.answers) == 0 && notKept.Lines == 0 {
		return
	}
	t.Test(ev.ids.messagesOnly)
	var bad []string
	var first string
	for _, a := range ev.answers {
		if a.shaped {
			continue
		}
		why := a.Problem
		if a.Msg == nil && why == "" || strings.Contains(why, "request or notification") {
			why = "it is a request or a notification, not a response"
		}
		if first == "" {
			first = a.Line
		}
		if rest, ok := strings.CutPrefix(why, "it "); ok {
			bad = append(bad, fmt.Sprintf("stdout line %d %s %s", a.n, quote(a.Line), rest))
		} else {
			bad = append(bad, fmt.Sprintf("stdout line %d %s: %s", a.n, quote(a.Line), why))
		}
	}
	// Lines past what a run keeps are counted, not kept: those that are
	// not shaped as responses are counted here too.
	unkept := notKept.Lines - notKept.Responses
	if len(bad) > 0 || unkept > 0 {
		some := grading.ListSome(bad, 3)
		if unkept > 0 {
			if some != "" {
				some += "; "
			}
			some += fmt.Sprintf("%s after the first %d (counted, not kept)", grading.CountOf(unkept, "more such line", "more such lines"), stdioprobe.KeptStdoutLines)
		}
		ev.fail(t, grading.Failure{
			What:     fmt.Sprintf("%s: %s", grading.CountOf(len(bad)+unkept, "line on stdout is not a JSON-RPC response", "lines on stdout are not JSON-RPC responses"), some),
			Expected: "only JSON-RPC response objects on stdout, one per line",
			Actual:   first,
		}, ev.ids.messagesOnly)
	}
}

// judgeIDs judges ids-exact: the answer tied to a request carries its id,
// of the same JSON type.
func judgeIDs(ev *evidence, t *grading.Tally) {
	for _, l := range ev.lines {
		if l.kind != lineRequest || l.got == nil {
			continue
		}
		t.Test(ev.ids.idsExact)
		if !wire.SameID(l.id, l.got.id) {
			ev.fail(t, grading.Failure{Where: fmt.Sprintf("line %d", l.n), Line: l.text,
				What:     fmt.Sprintf("the answer to %s, whose id is %s (%s), carries id %s (%s)", l.describe(), l.id, grading.IDType(l.id), l.got.id, grading.IDType(l.got.id)),
				Expected: fmt.Sprintf("id %s, exactly as sent", l.id),
				Actual:   l.got.Line,
			}, ev.ids.idsExact)
		}
	}
}

// judgeOnce judges answers-once and notifications-silent: no line is
// answered twice, no answer comes that no line asks for, and when stdin
// closes every request has its answer. It counts only the faults no other
// check is charged with: a request the scenario expects an answer to is its
// expected answer's checks' (judgeExpected), a line lost to framing and the
// answers its pieces got a framing check's, and a bad line's error with id
// null its own check's.
func judgeOnce(ev *evidence, t *grading.Tally) {
	run := ev.run
	t.Test(ev.ids.answersOnce)
	for _, l := range ev.lines {
		if len(l.again) > 0 {
			ev.fail(t, grading.Failure{Where: fmt.Sprintf("line %d", l.n), Line: l.text,
				What:     fmt.Sprintf("%s was answered %d times", l.describe(), len(l.again)+1),
				Expected: "exactly one answer",
				Actual:   l.again[0].Line}, ev.ids.answersOnce)
		}
	}
	notifications := 0
	for _, l := range ev.lines {
		if l.kind == lineNotification {
			notifications++
		}
	}
	// A server that answered no line (it said nothing, or only junk), or
	// died early, has not shown that it keeps quiet about notifications: it
	// was never asked properly.
	answered := false
	for _, l := range ev.lines {
		answered = answered || l.got != nil
	}
	if notifications > 0 && answered && !run.EarlyExit {
		t.Test(ev.ids.silent)
	}
	// Extra parse and invalid-request errors are a server answering a line
	// twice or answering pieces of lines, and an answer with an id no
	// request has answers a request the server misread; other extra answers,
	// with id null or none, in a scenario with notifications, can only be
	// answers to them.
	// The answers a framing check is charged with (pieces of a line read
	// as lines) are left out.
	var errorsExtra, otherExtra []*answer
	for _, a := range ev.extra {
		if ev.fragments[a] || ev.misreadAnswers[a] {
			continue
		}
		if a.badLineError() || a.usableID() {
			errorsExtra = append(errorsExtra, a)
		} else {
			otherExtra = append(otherExtra, a)
		}
	}
	if notifications == 0 {
		errorsExtra, otherExtra = append(errorsExtra, otherExtra...), nil
	}
	// Answers past what a run keeps, which no line's allowance covered,
	// are counted here: they answer no line, or one already answered.
	unkept := run.StdoutNotKept.Responses
	if len(errorsExtra) > 0 || unkept > 0 {
		listed := listAnswers(errorsExtra)
		if unkept > 0 {
			if listed != "" {
				listed += "; "
			}
			listed += fmt.Sprintf("%s after the first %d lines (counted, not kept)", grading.CountOf(unkept, "more answer", "more answers"), stdioprobe.KeptStdoutLines)
		}
		what := fmt.Sprintf("%s came that no line of the scenario asks for: %s", grading.CountOf(len(errorsExtra)+unkept, "answer", "answers"), listed)
		nullish := 0
		for _, a := range errorsExtra {
			if !a.hasID || bytes.Equal(a.id, wire.Null) {
				nullish++
			}
		}
		if _, _, count := nullCount(ev.lines, nullish); nullish > 0 {
			what += " (" + count + ")"
		}
		actual := ""
		if len(errorsExtra) > 0 {
			actual = errorsExtra[0].Line
		}
		ev.fail(t, grading.Failure{What: what, Expected: "one answer per line that deserves one, and nothing more", Actual: actual}, ev.ids.answersOnce)
	}
	if len(otherExtra) > 0 {
		ev.fail(t, grading.Failure{
			What: fmt.Sprintf("the scenario sent %s, and %s came that no request asked for, so only %s can have caused %s: %s",
				grading.CountOf(notifications, "notification", "notifications"), grading.CountOf(len(otherExtra), "answer", "answers"),
				grading.Pick(notifications, "the notification", "the notifications"), grading.Pick(len(otherExtra), "it", "them"), listAnswers(otherExtra)),
			Expected: "no answer at all to a notification", Actual: otherExtra[0].Line}, ev.ids.silent)
	}
	if ev.sc.Ends() == scenario.StepClose && !ev.closesEarly() {
		if missing := ev.missingRequests(); len(missing) > 0 {
			var ids []string
			for _, l := range missing {
				ids = append(ids, string(l.id))
			}
			ev.fail(t, ev.missed(grading.Failure{
				What:     ev.withNote(fmt.Sprintf("%s got no answer at all: id %s", grading.CountOf(len(missing), "request", "requests"), strings.Join(ids, ", id "))),
				Expected: "one answer to every request before the server exits"}), ev.ids.answersOnce)
		}
	}
}

// judgeExit judges exit-on-eof in a scenario that closes stdin.
func judgeExit(ev *evidence, t *grading.Tally) {
	run := ev.run
	if ev.sc.Ends() != scenario.StepClose || ev.endedOnFatalLine() {
		return
	}
	t.Test(ev.ids.exitOnEOF)
	switch {
	case run.EarlyExit && !run.Closed:
		ev.fail(t, grading.Failure{What: ev.withNote("the server ended before its stdin was closed"),
			Expected: "the server keeps running until stdin closes, then exits with status 0"}, ev.ids.exitOnEOF)
	case run.OutputCapped:
		ev.fail(t, grading.Failure{What: ev.withNote("the server was stopped for writing too much output before it could exit"),
			Expected: "exit with status 0 soon after stdin closes"}, ev.ids.exitOnEOF)
	case !run.ExitedAfterClose:
		ev.fail(t, ev.missed(grading.Failure{What: ev.withNote("the server did not exit after its stdin closed"),
			Expected: "exit with status 0 soon after stdin closes"}), ev.ids.exitOnEOF)
	case !run.Exit.OK():
		ev.fail(t, grading.Failure{What: fmt.Sprintf("after its stdin closed, the server %s", run.Exit),
			Expected: "exit with status 0"}, ev.ids.exitOnEOF)
	}
}

// runContext says in a sentence what cut a run short, if anything.
func runContext(run *stdioprobe.Run) string {
	// No times here: a regrade of the same server must give the same words.
	switch {
	case run.OutputCapped:
		return "the server was stopped for writing more output than the grader accepts"
	case run.EarlyExit:
		return fmt.Sprintf("the server %s before the scenario was over", run.Exit)
	case run.Killed && run.Closed:
		return grading.StoppedBecause(run.KillReason)
	case len(explicitMisses(run)) > 0:
		return fmt.Sprintf("the grader waited for %s in vain", grading.AwaitedIDs(explicitMisses(run)))
	case len(run.AwaitMissed) > 0:
		return fmt.Sprintf("the grader waited for %s before it closed stdin, in vain", grading.AwaitedIDs(run.AwaitMissed))
	}
	return ""
}

// matches reports whether an answer is the expected one: a well-formed
// response with the expected id (its JSON type is for ids-exact to judge),
// or with no id member when that is what is expected, and the same result,
// or an error with the same code. A partial expectation lets the result
// hold more members than it lists.
func matches(e scenario.Expectation, a *answer) bool {
	m := a.Msg
	if m == nil || e.NoID == a.hasID {
		return false
	}
	if bytes.Equal(e.ID, wire.Null) != bytes.Equal(m.ID, wire.Null) || wire.LooseIDKey(e.ID) != wire.LooseIDKey(m.ID) {
		return false
	}
	switch {
	case e.Result != nil && e.Partial:
		return m.Result != nil && jsonContains(e.Result, m.Result)
	case e.Result != nil:
		return m.Result != nil && grading.JSONEqual(e.Result, m.Result)
	}
	return m.Error != nil && m.Error.Code == e.Code
}

// jsonContains reports whether got holds every member want lists, at any
// depth, with the same values; arrays must have the same length and match
// element by element.
func jsonContains(want, got json.RawMessage) bool {
	w, ok1 := grading.DecodeJSON(want)
	g, ok2 := grading.DecodeJSON(got)
	return ok1 && ok2 && contains(w, g)
}

func contains(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !contains(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !contains(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

func describeExpected(e scenario.Expectation) string {
	id := "with id " + string(e.ID)
	if e.NoID {
		id = "with no id member"
	}
	switch {
	case e.Result != nil && e.Partial:
		return fmt.Sprintf("a result holding %s, %s", e.Result, id)
	case e.Result != nil:
		return fmt.Sprintf("the result %s %s", e.Result, id)
	}
	return fmt.Sprintf("%d (%s) %s", e.Code, wire.CodeName(e.Code), id)
}

func listAnswers(as []*answer) string {
	if len(as) == 0 {
		return "none"
	}
	var s []string
	for _, a := range as {
		s = append(s, quote(a.Line))
	}
	return grading.ListSome(s, 3)
}

// quote shows a line of output in a message: printable, and cut when long.
func quote(line string) string {
	const limit = 120
	s := stdioprobe.Printable(line)
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return "`" + s + "`"
}
