package timeline

import (
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// This file says what the timeline of one scenario holds, and builds it
// from the scenario's events: lanes (one per stream), a mark per event with
// its verdict, the joins of answers to what asked for them (joins.go), the
// deadlines that ran out, and folds where nothing happened for a long
// time; layout.go places them. Every fact drawn is also in the scenario's
// event table, so the picture is never the only place to read it.

// How much of a transcript a page draws and quotes.
const (
	scenarioMarksMax = 400  // marks drawn per scenario; the rest are in the transcript only
	pageMarksMax     = 1000 // marks drawn on a whole page
	titleMax         = 160  // runes of an event's text in a mark's tooltip
	cellMax          = 300  // runes of an event's text in the event table
)

// lane is one horizontal lane of a timeline.
type lane struct {
	Name  string // what it shows: "stdin (what the grader wrote)"
	Short string // the label drawn: "stdin"
	Y     float64
	H     float64
	rows  []float64 // the right edge of the last mark of each row
}

// mark is one event drawn on a timeline, and its row in the event table.
type mark struct {
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

// link joins a request (the write that completed its line) to its answer.
type link struct {
	D     string // SVG path
	Class string
	Label string
}

// lineSpan is a line of stdin written in several chunks, drawn as a
// bracket under the pieces.
type lineSpan struct {
	X1, X2, Y float64
	Label     string
}

// fold is a quiet stretch drawn narrower than its time.
type fold struct {
	X     float64
	Label string
}

// tag is a short text drawn on the timeline.
type tag struct {
	X, Y float64
	Text string
}

// tick is one label of the time axis.
type tick struct {
	X     float64
	Label string
	fold  bool
}

// deadline is a wait of the grader's that ran out, across every lane.
type deadline struct {
	X     float64
	Label string
}

// scenarioTimeline is the timeline of one scenario.
type scenarioTimeline struct {
	Index     int
	Anchor    string
	Name      string
	Lanes     []*lane
	Marks     []*mark
	Links     []link
	Spans     []lineSpan
	Folds     []fold
	Ticks     []tick
	Deadlines []deadline
	Orders    []string        // "id 2 was answered before id 1, which was sent first"
	OrderTags []tag           // the same, drawn beside the answer
	Asserted  []assertedOrder // the orders the scenario asserts, and what happened
	Width     float64
	Height    float64
	EndMS     int64
	Undrawn   int // events past the scenario's limit, in the transcript only
}

// HasEvidence reports whether any mark of a scenario is evidence.
func (t *scenarioTimeline) HasEvidence() bool {
	for _, m := range t.Marks {
		if len(m.Evidence) > 0 {
			return true
		}
	}
	return false
}

// laneOf names the lane an event is drawn in.
func laneOf(e event.Event, client bool) string {
	if copy := httpCopy(e); copy != "" {
		switch kindOf(e) {
		case event.Post:
			return "copy " + copy + ": requests (POST)"
		case event.Status, event.Answer:
			return "copy " + copy + ": answers"
		case event.Stderr:
			return "copy " + copy + ": stderr (logs)"
		}
	}
	switch kindOf(e) {
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
		if server := serverOf(e); server != "" {
			return "server " + server
		}
		return "servers"
	}
	return "grader (exit, notes)"
}

// markLimits is how many events of each scenario are drawn and listed: up
// to scenarioMarksMax each, and pageMarksMax on the page, so a flood of
// events gives a page of bounded size (every event stays in the transcript).
func markLimits(scenarios []Group) []int {
	limits := make([]int, len(scenarios))
	left := pageMarksMax
	for i, sc := range scenarios {
		limits[i] = min(len(sc.Events), scenarioMarksMax, left)
		left -= limits[i]
	}
	return limits
}

// markID is the anchor of the mark of event ei of scenario si.
func markID(si, ei int) string { return fmt.Sprintf("m-%d-%d", si, ei) }

// rowID is the anchor of the table row of event ei of scenario si.
func rowID(si, ei int) string { return fmt.Sprintf("ev-%d-%d", si, ei) }

// buildTimeline lays out one scenario. ev holds the failed checks that point
// at each event; orders are the orders of answers the scenario asserts.
func buildTimeline(si int, sc Group, limit int, client bool, ev evidenceIndex, wrongFrom func(event.Event) string, orders []Order) *scenarioTimeline {
	t := &scenarioTimeline{Index: si, Anchor: fmt.Sprintf("sc-%d", si), Name: sc.Name}
	events := sc.Events[:limit]
	drawn := len(events)
	t.Undrawn = len(sc.Events) - drawn
	times := markTimes(events)
	t.EndMS = times[len(times)-1]
	tm := newTimeMap(times)
	lanes := newLaneSet(events, client)

	// Marks, placed in the first row of their lane they do not overlap.
	marks := make([]*mark, len(events))
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
		t.Folds = append(t.Folds, fold{X: x, Label: fmt.Sprintf("%s quiet", humanMS(f[1]-f[0]))})
	}
	t.Ticks = axisTicks(tm, t.EndMS)
	t.Marks = marks
	return t
}

// newMark is the mark of event ei of scenario si, with its classes and its
// verdict, not yet placed.
func newMark(si, ei int, e event.Event, client bool, ev evidenceIndex, wrongFrom func(event.Event) string) *mark {
	m := &mark{
		ID: markID(si, ei), RowID: rowID(si, ei), Seq: ei + 1, AtMS: e.At.Milliseconds(),
		Kind: string(kindOf(e)), Lane: laneOf(e, client),
		Text:     clipRunes(OneLine(shown(e), " ⏎ "), cellMax),
		Evidence: ev.byEvent[[2]int{si, ei}],
	}
	m.Title = fmt.Sprintf("%d ms, %s: %s", e.At.Milliseconds(), kindOf(e), clipRunes(OneLine(shown(e), " ⏎ "), titleMax))
	classes := []string{"k-" + cssWord(string(kindOf(e)))}
	if deadlineRanOut(e) {
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
	answer := kindOf(e) == event.Answer || kindOf(e) == event.ToServer
	verdict := ""
	if why := wrongFrom(e); why != "" && answer {
		verdict = "wrong: " + why
	}
	if len(evidence) > 0 && (answer || kindOf(e) == event.Stderr) && verdict == "" {
		verdict = "wrong: the failed check " + strings.Join(evidence, ", ") + " quotes it"
	}
	if verdict == "" && answer {
		verdict = "right"
	}
	return verdict
}

// markWrong marks an answer judged right so far as wrong, saying why.
func markWrong(m *mark, why string) {
	if strings.HasPrefix(m.Verdict, "wrong") {
		return
	}
	m.Verdict = "wrong: " + why
	m.Class = strings.Replace(m.Class, " ok", "", 1) + " wrong"
}

// markDeadlines draws each deadline that ran out across every lane.
func markDeadlines(t *scenarioTimeline, events []event.Event, marks []*mark) {
	for ei, e := range events {
		if deadlineRanOut(e) {
			t.Deadlines = append(t.Deadlines, deadline{X: marks[ei].X + markMinWidth/2, Label: clipRunes(OneLine(shown(e), " "), 60)})
		}
	}
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
