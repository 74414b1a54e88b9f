package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// This file turns one scenario of a transcript into the timeline the HTML
// report draws: lanes (one per stream), a mark per event placed at its
// recorded time, the cut points of chunks that split a line, the join of
// each answer to the line that asked for it, the deadlines that ran out,
// and folds where nothing happened for a long time. Every fact drawn is
// also in the scenario's event table, so the picture is never the only
// place to read it.

// Layout of the timeline, in SVG user units (pixels at 100 % zoom).
const (
	tlLeft      = 150.0 // room for the lane names
	tlPlot      = 860.0 // width of the plotted time
	tlRight     = 20.0
	tlTop       = 26.0 // room for the time axis
	tlRowH      = 18.0 // one row of marks inside a lane
	tlLanePad   = 8.0
	tlMarkH     = 12.0
	tlMinW      = 6.0  // the narrowest mark
	tlMaxW      = 90.0 // the widest send mark
	tlPxPerByte = 0.5  // a send mark's width grows with its bytes
	tlMaxPxMS   = 4.0  // the most pixels one millisecond may get
	tlFoldMS    = 1000 // a quiet stretch longer than this is folded
	tlFoldPx    = 34.0 // the width a fold is drawn with
	tlMarksMax  = 400  // marks drawn per scenario; the rest are in the transcript only
	tlPageMarks = 1000 // marks drawn on a whole page
	tlRowsMax   = 6    // rows per lane before marks overlap
	tlTitleMax  = 160  // runes of an event's text in a mark's tooltip
	tlCellMax   = 300  // runes of an event's text in the event table
)

// tlLane is one horizontal lane of a timeline.
type tlLane struct {
	Name  string // what it shows: "stdin (what the grader wrote)"
	Short string // the label drawn: "stdin"
	Y     float64
	H     float64
	rows  []float64 // the right edge of the last mark of each row
}

// tlMark is one event drawn on a timeline, and its row in the event table.
type tlMark struct {
	ID       string // anchor of the mark in the SVG: m-S-E
	RowID    string // anchor of the event's row in the table: ev-S-E
	Seq      int    // the event's number in its scenario, from 1
	AtMS     int64
	Kind     string
	Lane     string
	X, Y, W  float64
	Class    string // CSS classes: the kind, and ok/wrong/deadline/evidence
	Title    string // tooltip: time, kind and text, clipped
	Text     string // the event's text for the table, clipped
	Verdict  string // "right", "wrong: …", or empty when not judged
	JoinedTo string // "answers line 3 (write 2)", "answered at 12 ms", …
	JoinRef  string // anchor of the other end of the join
	Cuts     []float64
	Newlines []float64 // x of each newline inside a send mark
	CutEnd   bool      // a send that ends inside a line
	Evidence []string  // the failed checks that point at this event
	Drawn    bool
}

// tlLink joins a request (the write that completed its line) to its answer.
type tlLink struct {
	D     string // SVG path
	Class string
	Label string
}

// tlSpan is a line of stdin written in several chunks, drawn as a bracket
// under the pieces.
type tlSpan struct {
	X1, X2, Y float64
	Label     string
}

// tlFold is a quiet stretch drawn narrower than its time.
type tlFold struct {
	X     float64
	Label string
}

// tlTag is a short text drawn on the timeline.
type tlTag struct {
	X, Y float64
	Text string
}

// tlTick is one label of the time axis.
type tlTick struct {
	X     float64
	Label string
	fold  bool
}

// tlDeadline is a wait of the grader's that ran out, across every lane.
type tlDeadline struct {
	X     float64
	Label string
}

// tlScenario is the timeline of one scenario.
type tlScenario struct {
	Index     int
	Anchor    string
	Name      string
	Lanes     []*tlLane
	Marks     []*tlMark
	Links     []tlLink
	Spans     []tlSpan
	Folds     []tlFold
	Ticks     []tlTick
	Deadlines []tlDeadline
	Orders    []string     // "id 2 was answered before id 1, which was sent first"
	OrderTags []tlTag      // the same, drawn beside the answer
	Asserted  []tlAsserted // the orders the scenario asserts, and what happened
	Width     float64
	Height    float64
	EndMS     int64
	Undrawn   int // events past the scenario's limit, in the transcript only
}

// deadlineNote matches the grader's notes that say a wait ran out.
var deadlineNote = regexp.MustCompile(`(?i)\bno answer\b|\bwithin [0-9]|\btimed out\b|\bdeadline\b|\bgave up\b|\bdid not end\b`)

// quotedLine finds the line a check's message quotes: line 3 `{"id":…}`.
var quotedLine = regexp.MustCompile("line [0-9]+ `([^`]*)`")

// serverPrefix matches the name#connection prefix of a rig event.
var serverPrefix = regexp.MustCompile(`^([^\s#]+)#[0-9]+ `)

// ClientTranscript reports whether events are a client lesson's: they
// hold the rig's events (what the client sent the servers the lab played,
// and what they answered). Its lanes and joins are a client's.
func ClientTranscript(events []event.Event) bool {
	for _, e := range events {
		switch e.Kind {
		case event.ToServer, event.FromServer, event.Rig:
			return true
		}
	}
	return false
}

// laneOf names the lane an event is drawn in.
func laneOf(e event.Event, client bool) string {
	switch e.Kind {
	case event.Send, event.Close:
		if client {
			return "commands (the client's stdin)"
		}
		return "stdin (what the grader wrote)"
	case event.Answer:
		if client {
			return "the client's answers (stdout)"
		}
		return "stdout (the server's answers)"
	case event.Stderr:
		return "stderr (logs)"
	case event.ToServer, event.FromServer, event.Rig:
		if m := serverPrefix.FindStringSubmatch(e.Text); m != nil {
			return "server " + m[1]
		}
		return "servers"
	}
	return "grader (exit, notes)"
}

// payload is an event's message without a rig event's "name#n " prefix and
// an HTTP request's "[headers] " part.
func payload(e event.Event) string {
	t := e.Text
	if m := serverPrefix.FindStringIndex(t); m != nil {
		t = t[m[1]:]
	}
	if strings.HasPrefix(t, "[") {
		if i := strings.Index(t, "] {"); i >= 0 {
			t = t[i+2:]
		}
	}
	return strings.TrimSpace(t)
}

// message is the id and method of a JSON-RPC message, when the text is one.
type message struct {
	object   bool
	hasID    bool
	id       string // the id re-encoded, so 1 and 1.0 differ but spacing does not
	method   string
	response bool
}

func parseMessage(s string) message {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return message{}
	}
	out := message{object: true}
	if raw, ok := m["id"]; ok {
		out.hasID = true
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			out.id = b.String()
		}
	}
	if raw, ok := m["method"]; ok {
		_ = json.Unmarshal(raw, &out.method)
	}
	_, res := m["result"]
	_, errf := m["error"]
	out.response = res || errf
	return out
}

// canonicalJSON is s decoded and encoded again (object keys sorted), or ""
// when s is not JSON.
func canonicalJSON(s string) string {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// stdinLine is one line of what the grader wrote, with the writes that hold it.
type stdinLine struct {
	n          int
	text       string
	first      int // index in the scenario of the write it starts in
	last       int // index of the write holding its newline
	endOffset  int // offset of the newline inside the last write
	msg        message
	answeredBy int // index of the answer joined to it, or -1
}

// evidenceIndex is, per scenario and event, the failed checks that point at
// the event, and per check the anchors of its marks.
type evidenceIndex struct {
	byEvent map[[2]int][]string
	byCheck map[int][]EvidenceRef
}

// EvidenceRef is one link of a failed check to a mark: the anchor of the
// mark (or of a scenario's timeline) and what the link reads.
type EvidenceRef struct {
	Href  string
	Label string
}

// evidenceMax caps the marks one check links to.
const evidenceMax = 12

// scenarioNamed finds the scenario a check's message names first ("In
// scenario 03-errors, ..."), or -1.
func scenarioNamed(msg string, scenarios []Group) int {
	best, at := -1, len(msg)+1
	for i, sc := range scenarios {
		if sc.Name == "" {
			continue
		}
		j := strings.Index(msg, "scenario "+sc.Name)
		if j >= 0 {
			end := j + len("scenario "+sc.Name)
			if end < len(msg) && !strings.ContainsRune(" ,.;:)", rune(msg[end])) {
				continue // a longer name that begins with this one
			}
			if j < at {
				best, at = i, j
			}
		}
	}
	return best
}

// findEvidence ties each failed check to the events that show it: those
// whose message is the check's actual answer (as JSON, keys in any order,
// or as text), in the scenario the check names first, then elsewhere; with
// no actual answer, the deadlines that ran out in the scenario it names.
func findEvidence(checks []Check, scenarios []Group, limits []int) evidenceIndex {
	ix := evidenceIndex{byEvent: map[[2]int][]string{}, byCheck: map[int][]EvidenceRef{}}
	for ci, c := range checks {
		if !c.Failed {
			continue
		}
		named := scenarioNamed(c.Message, scenarios)
		first, _, _ := strings.Cut(c.Actual, "\n")
		actual := strings.TrimSpace(first)
		canon := canonicalJSON(c.Actual)
		if canon == "" {
			canon = canonicalJSON(actual)
		}
		matches := func(e event.Event) bool {
			switch e.Kind {
			case event.Send, event.Close, event.Exit, event.Rig, event.FromServer:
				return false
			}
			if e.Kind == event.Note && actual == "" {
				return deadlineNote.MatchString(e.Text)
			}
			if actual == "" {
				return false
			}
			p := payload(e)
			if canon != "" && canonicalJSON(p) == canon {
				return true
			}
			return p == actual || strings.TrimSpace(e.Text) == actual || (len(actual) >= 8 && strings.Contains(e.Text, actual))
		}
		order := make([]int, 0, len(scenarios))
		if named >= 0 {
			order = append(order, named)
		}
		for i := range scenarios {
			if i != named {
				order = append(order, i)
			}
		}
		var refs []EvidenceRef
		add := func(si, ei int) {
			for _, r := range refs {
				if r.Href == markID(si, ei) {
					return
				}
			}
			e := scenarios[si].Events[ei]
			ix.byEvent[[2]int{si, ei}] = append(ix.byEvent[[2]int{si, ei}], c.ID)
			refs = append(refs, EvidenceRef{
				Href:  markID(si, ei),
				Label: fmt.Sprintf("scenario %s, event %d (%s at %d ms)", scenarios[si].Name, ei+1, e.Kind, e.AtMS),
			})
		}
		if missing := actual == "" || actual == "(nothing)"; missing && named >= 0 {
			// Nothing came: the evidence is the line that asked, and
			// what the grader noted (a wait that ran out, an early end).
			events := scenarios[named].Events
			if q := quotedLine.FindStringSubmatch(c.Message); q != nil {
				want := strings.TrimSuffix(q[1], "...")
				for _, l := range splitLines(events) {
					if l.last < limits[named] && want != "" && strings.HasPrefix(l.text, want) {
						add(named, l.last)
						break
					}
				}
			}
			for ei, e := range events[:limits[named]] {
				if e.Kind == event.Note && len(refs) < evidenceMax {
					add(named, ei)
				}
			}
			ix.byCheck[ci] = refs
			if len(refs) > 0 {
				continue
			}
		}
		for _, si := range order {
			if si != named && actual == "" {
				break // a missing answer is shown only where the check says
			}
			for ei, e := range scenarios[si].Events {
				if len(refs) == evidenceMax {
					break
				}
				if ei >= limits[si] || !matches(e) {
					continue
				}
				add(si, ei)
			}
		}
		if len(refs) == 0 && named >= 0 {
			refs = append(refs, EvidenceRef{Href: "sc-" + fmt.Sprint(named), Label: "the timeline of scenario " + scenarios[named].Name})
		}
		ix.byCheck[ci] = refs
	}
	return ix
}

// markLimits is how many events of each scenario are drawn and listed: up
// to tlMarksMax each, and tlPageMarks on the page, so a flood of events
// gives a page of bounded size (every event stays in the transcript).
func markLimits(scenarios []Group) []int {
	limits := make([]int, len(scenarios))
	left := tlPageMarks
	for i, sc := range scenarios {
		limits[i] = min(len(sc.Events), tlMarksMax, left)
		left -= limits[i]
	}
	return limits
}

func markID(si, ei int) string { return fmt.Sprintf("m-%d-%d", si, ei) }
func rowID(si, ei int) string  { return fmt.Sprintf("ev-%d-%d", si, ei) }

// timeMap places a time on the x axis, folding quiet stretches.
type timeMap struct {
	folds  [][2]int64 // start and end of each folded stretch
	pxPerM float64
}

func newTimeMap(times []int64) timeMap {
	var tm timeMap
	span := int64(0)
	for i := 1; i < len(times); i++ {
		gap := times[i] - times[i-1]
		if gap > tlFoldMS {
			tm.folds = append(tm.folds, [2]int64{times[i-1], times[i]})
		} else {
			span += gap
		}
	}
	room := tlPlot - tlMaxW - float64(len(tm.folds))*tlFoldPx
	tm.pxPerM = tlMaxPxMS
	if span > 0 {
		tm.pxPerM = math.Min(tlMaxPxMS, math.Max(room, 100)/float64(span))
	}
	return tm
}

// x is the position of time t (ms since the scenario's start).
func (tm timeMap) x(t int64) float64 {
	shift := float64(0)
	folded := int64(0)
	for _, f := range tm.folds {
		if t >= f[1] {
			folded += f[1] - f[0]
			shift += tlFoldPx
		} else if t > f[0] {
			folded += t - f[0]
			shift += tlFoldPx * float64(t-f[0]) / float64(f[1]-f[0])
		}
	}
	return tlLeft + float64(t-folded)*tm.pxPerM + shift
}

// buildTimeline lays out one scenario. ev holds the failed checks that point
// at each event; orders are the orders of answers the scenario asserts.
func buildTimeline(si int, sc Group, limit int, client bool, ev evidenceIndex, wrongFrom func(event.Event) string, orders []Order) *tlScenario {
	t := &tlScenario{Index: si, Anchor: fmt.Sprintf("sc-%d", si), Name: sc.Name}
	events := sc.Events[:limit]
	drawn := len(events)
	t.Undrawn = len(sc.Events) - drawn
	times := markTimes(events)
	t.EndMS = times[len(times)-1]
	tm := newTimeMap(times)
	lanes := newTimelineLanes(events, client)

	// Marks, placed in the first row of their lane they do not overlap.
	marks := make([]*tlMark, len(events))
	for ei, e := range events {
		marks[ei] = newMark(si, ei, e, client, ev, wrongFrom)
		if ei < drawn {
			lanes.place(marks[ei], e, tm.x(times[ei+1]))
		}
	}
	lanes.stack(t, marks)

	// Split lines and joins.
	if client {
		joinClient(t, events, marks)
	} else {
		joinServer(t, events, marks, lanes.byName)
		markAsserted(t, events, marks, orders)
	}
	markDeadlines(t, events[:drawn], marks)
	// Folds and the time axis.
	for _, f := range tm.folds {
		x := tm.x(f[0])
		t.Folds = append(t.Folds, tlFold{X: x, Label: fmt.Sprintf("%s quiet", humanMS(f[1]-f[0]))})
	}
	t.Ticks = axisTicks(tm, t.EndMS)
	t.Marks = marks
	return t
}

// markTimes is the time each event is drawn at, after a leading 0: its
// recorded time, never earlier than the event before it.
func markTimes(events []event.Event) []int64 {
	times := make([]int64, 0, len(events)+1)
	times = append(times, 0)
	for _, e := range events {
		at := max(e.AtMS, times[len(times)-1]) // never backwards
		times = append(times, at)
	}
	return times
}

// timelineLanes are the lanes of one timeline, by name and in the order
// they are drawn.
type timelineLanes struct {
	byName map[string]*tlLane
	order  []string
}

// newTimelineLanes makes the lanes, in a fixed order: what the program is
// sent, what it answers, each rig server, stderr, and the grader's own events.
func newTimelineLanes(events []event.Event, client bool) *timelineLanes {
	ls := &timelineLanes{byName: map[string]*tlLane{}}
	ls.want(laneOf(event.Event{Kind: event.Send}, client))
	ls.want(laneOf(event.Event{Kind: event.Answer}, client))
	for _, e := range events {
		if l := laneOf(e, client); strings.HasPrefix(l, "server") {
			ls.want(l)
		}
	}
	ls.want(laneOf(event.Event{Kind: event.Stderr}, client))
	ls.want(laneOf(event.Event{Kind: event.Note}, client))
	return ls
}

// want adds the lane name unless it is there already.
func (ls *timelineLanes) want(name string) {
	if ls.byName[name] == nil {
		short, _, _ := strings.Cut(name, " (")
		ls.byName[name] = &tlLane{Name: name, Short: short}
		ls.order = append(ls.order, name)
	}
}

// newMark is the mark of event ei of scenario si, with its classes and its
// verdict, not yet placed.
func newMark(si, ei int, e event.Event, client bool, ev evidenceIndex, wrongFrom func(event.Event) string) *tlMark {
	m := &tlMark{
		ID: markID(si, ei), RowID: rowID(si, ei), Seq: ei + 1, AtMS: e.AtMS,
		Kind: string(e.Kind), Lane: laneOf(e, client),
		Text:     clipRunes(OneLine(e.Text, " ⏎ "), tlCellMax),
		Evidence: ev.byEvent[[2]int{si, ei}],
	}
	m.Title = fmt.Sprintf("%d ms, %s: %s", e.AtMS, e.Kind, clipRunes(OneLine(e.Text, " ⏎ "), tlTitleMax))
	classes := []string{"k-" + cssWord(string(e.Kind))}
	if e.Kind == event.Note && deadlineNote.MatchString(e.Text) {
		classes = append(classes, "deadline")
	}
	if len(m.Evidence) > 0 {
		classes = append(classes, "evidence")
	}
	m.Verdict = markVerdict(e, m.Evidence, wrongFrom)
	switch {
	case strings.HasPrefix(m.Verdict, "wrong"):
		classes = append(classes, "wrong")
	case m.Verdict == "right":
		classes = append(classes, "ok")
	}
	m.Class = "mark " + strings.Join(classes, " ")
	return m
}

// markVerdict judges an event: "wrong: …" for an answer the grader found
// wrong or one a failed check quotes, "right" for any other answer, and ""
// for an event that is not an answer.
func markVerdict(e event.Event, evidence []string, wrongFrom func(event.Event) string) string {
	answer := e.Kind == event.Answer || e.Kind == event.ToServer
	verdict := ""
	if why := wrongFrom(e); why != "" && answer {
		verdict = "wrong: " + why
	}
	if len(evidence) > 0 && (answer || e.Kind == event.Stderr) && verdict == "" {
		verdict = "wrong: the failed check " + strings.Join(evidence, ", ") + " quotes it"
	}
	if verdict == "" && answer {
		verdict = "right"
	}
	return verdict
}

// place draws mark m at x, in the first row of its lane it does not
// overlap (the last row when the lane has all its rows); m.Y is the row
// until stack makes it absolute.
func (ls *timelineLanes) place(m *tlMark, e event.Event, x float64) {
	m.Drawn = true
	m.X = x
	m.W = tlMinW
	if e.Kind == event.Send {
		m.W = math.Min(tlMaxW, math.Max(tlMinW, float64(len(e.Text))*tlPxPerByte))
	}
	lane := ls.byName[m.Lane]
	row := -1
	for i, right := range lane.rows {
		if m.X >= right+1 {
			row = i
			break
		}
	}
	if row < 0 {
		if len(lane.rows) < tlRowsMax {
			lane.rows = append(lane.rows, 0)
			row = len(lane.rows) - 1
		} else {
			row = len(lane.rows) - 1 // overlap the last row rather than grow
		}
	}
	lane.rows[row] = m.X + m.W
	m.Y = float64(row) // a row for now; made absolute by stack
}

// stack piles the lanes top to bottom, each as tall as its rows, sizes the
// timeline, and turns each drawn mark's row into its y.
func (ls *timelineLanes) stack(t *tlScenario, marks []*tlMark) {
	y := tlTop
	for _, name := range ls.order {
		l := ls.byName[name]
		l.Y = y
		l.H = float64(max(1, len(l.rows)))*tlRowH + 2*tlLanePad
		y += l.H
		t.Lanes = append(t.Lanes, l)
	}
	t.Height = y + 30 // room for the brackets of split lines and the folds' labels
	t.Width = tlLeft + tlPlot + tlRight
	for _, m := range marks {
		if m.Drawn {
			l := ls.byName[m.Lane]
			m.Y = l.Y + tlLanePad + m.Y*tlRowH + (tlRowH-tlMarkH)/2
		}
	}
}

// markDeadlines draws each deadline that ran out across every lane.
func markDeadlines(t *tlScenario, events []event.Event, marks []*tlMark) {
	for ei, e := range events {
		if e.Kind == event.Note && deadlineNote.MatchString(e.Text) {
			t.Deadlines = append(t.Deadlines, tlDeadline{X: marks[ei].X + tlMinW/2, Label: clipRunes(OneLine(e.Text, " "), 60)})
		}
	}
}

// joinServer rebuilds the lines the grader wrote from its chunks, marks
// the cut points of lines split over writes, and joins each answer to the
// line with its id (an answer with id null to the first unanswered line
// that had no id to copy).
func joinServer(t *tlScenario, events []event.Event, marks []*tlMark, lanes map[string]*tlLane) {
	lines := splitLines(events)
	for ei, e := range events {
		if e.Kind != event.Send {
			continue
		}
		text := e.Text
		m := marks[ei]
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' && m.Drawn {
				m.Newlines = append(m.Newlines, m.X+m.W*float64(i+1)/float64(len(text)))
			}
		}
		if !strings.HasSuffix(text, "\n") && text != "" {
			m.CutEnd = true
			m.Class += " cut"
			m.JoinedTo = joinText(m.JoinedTo, "ends inside a line: the rest comes in a later write")
		}
	}
	for _, l := range lines {
		if l.first == l.last {
			continue
		}
		a, b := marks[l.first], marks[l.last]
		pieces := 0
		for i := l.first; i <= l.last; i++ {
			if events[i].Kind == event.Send {
				pieces++
			}
		}
		b.JoinedTo = joinText(b.JoinedTo, fmt.Sprintf("completes line %d, which began in event %d (%d writes)", l.n, l.first+1, pieces))
		if a.Drawn && b.Drawn {
			lane := lanes[a.Lane]
			t.Spans = append(t.Spans, tlSpan{X1: a.X, X2: b.X + b.W*float64(l.endOffset+1)/float64(max(1, len(events[l.last].Text))), Y: lane.Y + lane.H - 3,
				Label: fmt.Sprintf("line %d in %d writes", l.n, pieces)})
		}
	}
	// Answers joined to lines, in the order they came.
	var sentSoFar []*stdinLine
	li := 0
	for ei, e := range events {
		for li < len(lines) && lines[li].last < ei {
			sentSoFar = append(sentSoFar, lines[li])
			li++
		}
		if e.Kind != event.Answer {
			continue
		}
		msg := parseMessage(e.Text)
		if !msg.object || !msg.hasID {
			continue
		}
		var to *stdinLine
		for _, l := range sentSoFar {
			if l.answeredBy >= 0 {
				continue
			}
			if msg.id == "null" {
				if !l.msg.object || (!l.msg.hasID && l.msg.method == "") {
					to = l
					break
				}
				continue
			}
			if l.msg.hasID && l.msg.id == msg.id {
				to = l
				break
			}
		}
		if to == nil {
			if msg.id != "null" {
				marks[ei].JoinedTo = joinText(marks[ei].JoinedTo, "no line sent so far has id "+msg.id)
				markWrong(marks[ei], "no line sent so far, still unanswered, has id "+msg.id)
			}
			continue
		}
		to.answeredBy = ei
		// An earlier request still waiting: this answer overtook it.
		for _, l := range sentSoFar {
			if l != to && l.answeredBy < 0 && l.msg.hasID && l.msg.method != "" && l.n < to.n && l.msg.id != "null" {
				t.Orders = append(t.Orders, fmt.Sprintf("id %s (line %d) was answered at %d ms, before id %s (line %d), which was sent first and was still waiting", msg.id, to.n, e.AtMS, l.msg.id, l.n))
				if a := marks[ei]; a.Drawn {
					t.OrderTags = append(t.OrderTags, tlTag{X: a.X + a.W + 2, Y: a.Y + 10, Text: fmt.Sprintf("%s before %s", msg.id, l.msg.id)})
				}
				break
			}
		}
		req, ans := marks[to.last], marks[ei]
		req.JoinedTo = joinText(req.JoinedTo, fmt.Sprintf("line %d is answered by event %d at %d ms", to.n, ei+1, e.AtMS))
		req.JoinRef = ans.RowID
		ans.JoinedTo = joinText(ans.JoinedTo, fmt.Sprintf("answers line %d (id %s), whose end was written by event %d at %d ms", to.n, msg.id, to.last+1, events[to.last].AtMS))
		ans.JoinRef = req.RowID
		if req.Drawn && ans.Drawn {
			x1 := req.X + req.W*float64(to.endOffset+1)/float64(max(1, len(events[to.last].Text)))
			t.Links = append(t.Links, tlLink{D: curve(x1, req.Y+tlMarkH, ans.X+ans.W/2, ans.Y), Class: "link " + verdictClass(ans.Verdict), Label: "id " + msg.id})
		}
	}
}

// splitLines rebuilds the lines the grader wrote from the chunks of a
// scenario, noting the writes each one spans. Blank lines are left out.
func splitLines(events []event.Event) []*stdinLine {
	var lines []*stdinLine
	var pending []byte
	start := -1
	n := 0
	for ei, e := range events {
		if e.Kind != event.Send {
			continue
		}
		text := e.Text
		for off := 0; off < len(text); {
			if start < 0 {
				start = ei
			}
			nl := strings.IndexByte(text[off:], '\n')
			if nl < 0 {
				pending = append(pending, text[off:]...)
				break
			}
			pending = append(pending, text[off:off+nl]...)
			n++
			l := &stdinLine{n: n, text: string(pending), first: start, last: ei, endOffset: off + nl, answeredBy: -1}
			l.msg = parseMessage(l.text)
			if strings.TrimSpace(l.text) != "" {
				lines = append(lines, l)
			}
			pending = pending[:0]
			start = -1
			off += nl + 1
		}
	}
	return lines
}

// joinClient joins each command to the client's answer to it (commands are
// answered in turn), and each message the client sent a server to the
// server's answer with the same id.
func joinClient(t *tlScenario, events []event.Event, marks []*tlMark) {
	var commands []int
	next := 0
	type key struct{ server, id string }
	asked := map[key]int{}
	for ei, e := range events {
		switch e.Kind {
		case event.Send:
			commands = append(commands, ei)
		case event.Answer:
			if next < len(commands) {
				ci := commands[next]
				next++
				link(t, marks, ci, ei, fmt.Sprintf("answers command %d", next), fmt.Sprintf("command %d", next))
			}
		case event.ToServer, event.FromServer:
			m := serverPrefix.FindStringSubmatch(e.Text)
			if m == nil {
				continue
			}
			msg := parseMessage(payload(e))
			if !msg.hasID {
				continue
			}
			k := key{m[1], msg.id}
			if e.Kind == event.ToServer {
				if !msg.response {
					asked[k] = ei
				}
				continue
			}
			if from, ok := asked[k]; ok && msg.response {
				delete(asked, k)
				link(t, marks, from, ei, "the server "+m[1]+" answers id "+msg.id, "id "+msg.id)
			}
		}
	}
}

// link joins mark from (a request) to mark to (its answer).
func link(t *tlScenario, marks []*tlMark, from, to int, what, label string) {
	a, b := marks[from], marks[to]
	a.JoinedTo = joinText(a.JoinedTo, fmt.Sprintf("answered by event %d at %d ms", to+1, b.AtMS))
	a.JoinRef = b.RowID
	b.JoinedTo = joinText(b.JoinedTo, fmt.Sprintf("%s (event %d at %d ms)", what, from+1, a.AtMS))
	b.JoinRef = a.RowID
	if a.Drawn && b.Drawn {
		y1, y2 := a.Y+tlMarkH, b.Y
		if b.Y < a.Y {
			y1, y2 = a.Y, b.Y+tlMarkH
		}
		t.Links = append(t.Links, tlLink{D: curve(a.X+a.W, y1, b.X+b.W/2, y2), Class: "link " + verdictClass(b.Verdict), Label: label})
	}
}

// markWrong marks an answer judged right so far as wrong, saying why.
func markWrong(m *tlMark, why string) {
	if strings.HasPrefix(m.Verdict, "wrong") {
		return
	}
	m.Verdict = "wrong: " + why
	m.Class = strings.Replace(m.Class, " ok", "", 1) + " wrong"
}

func verdictClass(v string) string {
	switch {
	case strings.HasPrefix(v, "wrong"):
		return "wrong"
	case v == "right":
		return "ok"
	}
	return "plain"
}

func joinText(old, add string) string {
	if old == "" {
		return add
	}
	return old + "; " + add
}

// curve is an S-shaped path from (x1,y1) down or up to (x2,y2).
func curve(x1, y1, x2, y2 float64) string {
	my := (y1 + y2) / 2
	return fmt.Sprintf("M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f", x1, y1, x1, my, x2, my, x2, y2)
}

// axisTicks labels the time axis at a round step, skipping folded time.
func axisTicks(tm timeMap, end int64) []tlTick {
	steps := []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 60000}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if float64(s)*tm.pxPerM >= 70 {
			step = s
			break
		}
	}
	var ticks []tlTick
	for at := int64(0); at <= end && len(ticks) < 200; at += step {
		inFold := false
		for _, f := range tm.folds {
			if at > f[0] && at < f[1] {
				inFold = true
			}
		}
		if !inFold {
			ticks = append(ticks, tlTick{X: tm.x(at), Label: humanMS(at)})
		}
	}
	// After a fold, time restarts at the fold's end: label it first.
	for _, f := range tm.folds {
		ticks = append(ticks, tlTick{X: tm.x(f[1]), Label: humanMS(f[1]), fold: true})
	}
	sort.SliceStable(ticks, func(i, j int) bool {
		if ticks[i].X != ticks[j].X {
			return ticks[i].X < ticks[j].X
		}
		return ticks[i].fold
	})
	var kept []tlTick
	for _, tk := range ticks {
		if n := len(kept); n > 0 && tk.X-kept[n-1].X < 55 {
			if !tk.fold || kept[n-1].fold {
				continue
			}
			kept = kept[:n-1] // a fold's end wins over a round number
		}
		kept = append(kept, tk)
	}
	return kept
}

// humanMS is "12 ms" or "2.5 s".
func humanMS(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", float64(ms)/1000), "0"), ".0") + " s"
}

// cssWord keeps letters, digits and dashes, for a class name.
func cssWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '-' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "other"
	}
	return b.String()
}
