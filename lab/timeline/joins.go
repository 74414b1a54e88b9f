package timeline

import (
	"fmt"

	"github.com/mcplab/mcplab/lab/event"
)

// This file joins the marks of a timeline: on a server lesson's, the
// chunks that make each line the grader wrote and each answer to the line
// with its id (and the answers that overtook an earlier request); on a
// client lesson's, each command to the client's answer and each message
// the client sent a server to the server's answer.

// joinServer rebuilds the lines the grader wrote from its chunks, marks
// the cut points of lines split over writes, and joins each answer to the
// line with its id (an answer with id null to the first unanswered line
// that had no id to copy).
func joinServer(t *scenarioTimeline, events []event.Event, marks []*mark, lanes map[string]*lane) {
	lines := splitLines(events)
	markChunks(events, marks)
	spanSplitLines(t, events, marks, lines, lanes)
	joinAnswers(t, events, marks, lines)
	joinExchanges(t, events, marks)
}

// joinExchanges joins each answer of an HTTP exchange (its status, and
// each message of its body or event stream that carries an id) to the
// POST that asked it: same copy, same exchange number. HTTP matches an
// answer to its request by the exchange, the id then tells which message
// of a stream is the response.
func joinExchanges(t *scenarioTimeline, events []event.Event, marks []*mark) {
	type key struct {
		copy string
		conn int
	}
	posts := map[key]int{}
	for ei, e := range events {
		copy := httpCopy(e)
		if copy == "" {
			continue
		}
		k := key{copy, e.Conn}
		switch kindOf(e) {
		case event.Post:
			posts[k] = ei
		case event.Status:
			if from, ok := posts[k]; ok {
				marks[ei].JoinedTo = joinText(marks[ei].JoinedTo, fmt.Sprintf("the status of exchange %d (event %d)", e.Conn, from+1))
			}
		case event.Answer:
			from, ok := posts[k]
			msg := lineMessage(e)
			if !ok || !msg.object || !msg.hasID {
				continue
			}
			joinMarks(t, marks, from, ei, fmt.Sprintf("answers the POST of exchange %d, id %s", e.Conn, msg.id), "id "+msg.id)
		}
	}
}

// markChunks marks the newlines inside each write, and each write that
// ends inside a line.
func markChunks(events []event.Event, marks []*mark) {
	for ei, e := range events {
		if kindOf(e) != event.Send {
			continue
		}
		m := marks[ei]
		if m.Drawn {
			for _, i := range newlineOffsets(e) {
				m.Newlines = append(m.Newlines, m.X+m.W*float64(i+1)/float64(len(e.Text)))
			}
		}
		if endsInsideLine(e) {
			m.CutEnd = true
			m.Class += " cut"
			m.JoinedTo = joinText(m.JoinedTo, "ends inside a line: the rest comes in a later write")
		}
	}
}

// spanSplitLines says of the write that completes each line written in
// several writes where the line began, and draws a bracket under its
// pieces.
func spanSplitLines(t *scenarioTimeline, events []event.Event, marks []*mark, lines []*stdinLine, lanes map[string]*lane) {
	for _, l := range lines {
		if l.first == l.last {
			continue
		}
		a, b := marks[l.first], marks[l.last]
		pieces := 0
		for i := l.first; i <= l.last; i++ {
			if kindOf(events[i]) == event.Send {
				pieces++
			}
		}
		b.JoinedTo = joinText(b.JoinedTo, fmt.Sprintf("completes line %d, which began in event %d (%d writes)", l.n, l.first+1, pieces))
		if a.Drawn && b.Drawn {
			under := lanes[a.Lane]
			t.Spans = append(t.Spans, lineSpan{X1: a.X, X2: b.X + b.W*float64(l.endOffset+1)/float64(max(1, len(events[l.last].Text))), Y: under.Y + under.H - 3,
				Label: fmt.Sprintf("line %d in %d writes", l.n, pieces)})
		}
	}
}

// joinAnswers joins each answer, in the order they came, to the line sent
// before it with its id, and notes an answer that overtook an earlier
// request or answers no line.
func joinAnswers(t *scenarioTimeline, events []event.Event, marks []*mark, lines []*stdinLine) {
	var sentSoFar []*stdinLine
	li := 0
	for ei, e := range events {
		for li < len(lines) && lines[li].last < ei {
			sentSoFar = append(sentSoFar, lines[li])
			li++
		}
		if kindOf(e) != event.Answer || httpCopy(e) != "" {
			continue // an HTTP exchange's answer is joined by joinExchanges
		}
		msg := lineMessage(e)
		if !msg.object || !msg.hasID {
			continue
		}
		to := requestFor(msg, sentSoFar)
		if to == nil {
			if msg.id != "null" {
				marks[ei].JoinedTo = joinText(marks[ei].JoinedTo, "no line sent so far has id "+msg.id)
				markWrong(marks[ei], "no line sent so far, still unanswered, has id "+msg.id)
			}
			continue
		}
		to.answeredBy = ei
		noteOvertake(t, msg, e, marks[ei], to, sentSoFar)
		joinAnswer(t, events, marks, to, ei, msg)
	}
}

// requestFor is the first unanswered line sent so far that answer msg
// answers: the one with its id, or for id null the first with no id to
// copy; nil when there is none.
func requestFor(msg message, sentSoFar []*stdinLine) *stdinLine {
	for _, l := range sentSoFar {
		if l.answeredBy >= 0 {
			continue
		}
		if msg.id == "null" {
			if !l.msg.object || (!l.msg.hasID && l.msg.method == "") {
				return l
			}
			continue
		}
		if l.msg.hasID && l.msg.id == msg.id {
			return l
		}
	}
	return nil
}

// noteOvertake notes the first earlier request still waiting when answer
// e (drawn as a) to line to came: the answer overtook it.
func noteOvertake(t *scenarioTimeline, msg message, e event.Event, a *mark, to *stdinLine, sentSoFar []*stdinLine) {
	for _, l := range sentSoFar {
		if l != to && l.answeredBy < 0 && l.msg.hasID && l.msg.method != "" && l.n < to.n && l.msg.id != "null" {
			t.Orders = append(t.Orders, fmt.Sprintf("id %s (line %d) was answered at %d ms, before id %s (line %d), which was sent first and was still waiting", msg.id, to.n, e.At.Milliseconds(), l.msg.id, l.n))
			if a.Drawn {
				t.OrderTags = append(t.OrderTags, tag{X: a.X + a.W + 2, Y: a.Y + 10, Text: fmt.Sprintf("%s before %s", msg.id, l.msg.id)})
			}
			return
		}
	}
}

// joinAnswer joins line to (the write holding its end) and answer ei, in
// the table both ways and on the timeline by a curve.
func joinAnswer(t *scenarioTimeline, events []event.Event, marks []*mark, to *stdinLine, ei int, msg message) {
	req, ans := marks[to.last], marks[ei]
	req.JoinedTo = joinText(req.JoinedTo, fmt.Sprintf("line %d is answered by event %d at %d ms", to.n, ei+1, events[ei].At.Milliseconds()))
	req.JoinRef = ans.RowID
	ans.JoinedTo = joinText(ans.JoinedTo, fmt.Sprintf("answers line %d (id %s), whose end was written by event %d at %d ms", to.n, msg.id, to.last+1, events[to.last].At.Milliseconds()))
	ans.JoinRef = req.RowID
	if req.Drawn && ans.Drawn {
		x1 := req.X + req.W*float64(to.endOffset+1)/float64(max(1, len(events[to.last].Text)))
		t.Links = append(t.Links, link{D: curve(x1, req.Y+markHeight, ans.X+ans.W/2, ans.Y), Class: "link " + verdictClass(ans.Verdict), Label: "id " + msg.id})
	}
}

// joinClient joins each command to the client's answer to it (commands are
// answered in turn), and each message the client sent a server to the
// server's answer with the same id.
func joinClient(t *scenarioTimeline, events []event.Event, marks []*mark) {
	var commands []int
	next := 0
	type key struct{ server, id string }
	asked := map[key]int{}
	for ei, e := range events {
		switch kindOf(e) {
		case event.Send:
			commands = append(commands, ei)
		case event.Answer:
			if next < len(commands) {
				ci := commands[next]
				next++
				joinMarks(t, marks, ci, ei, fmt.Sprintf("answers command %d", next), fmt.Sprintf("command %d", next))
			}
		case event.ToServer, event.FromServer:
			server := serverOf(e)
			if server == "" {
				continue
			}
			msg := rigMessage(e)
			if !msg.hasID {
				continue
			}
			k := key{server, msg.id}
			if kindOf(e) == event.ToServer {
				if !msg.response {
					asked[k] = ei
				}
				continue
			}
			if from, ok := asked[k]; ok && msg.response {
				delete(asked, k)
				joinMarks(t, marks, from, ei, "the server "+server+" answers id "+msg.id, "id "+msg.id)
			}
		}
	}
}

// joinMarks joins mark from (a request) to mark to (its answer).
func joinMarks(t *scenarioTimeline, marks []*mark, from, to int, what, label string) {
	a, b := marks[from], marks[to]
	a.JoinedTo = joinText(a.JoinedTo, fmt.Sprintf("answered by event %d at %d ms", to+1, b.AtMS))
	a.JoinRef = b.RowID
	b.JoinedTo = joinText(b.JoinedTo, fmt.Sprintf("%s (event %d at %d ms)", what, from+1, a.AtMS))
	b.JoinRef = a.RowID
	if a.Drawn && b.Drawn {
		y1, y2 := a.Y+markHeight, b.Y
		if b.Y < a.Y {
			y1, y2 = a.Y, b.Y+markHeight
		}
		t.Links = append(t.Links, link{D: curve(a.X+a.W, y1, b.X+b.W/2, y2), Class: "link " + verdictClass(b.Verdict), Label: label})
	}
}

// joinText adds what a mark is joined to to what it was joined to before.
func joinText(old, add string) string {
	if old == "" {
		return add
	}
	return old + "; " + add
}
