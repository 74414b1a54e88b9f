package timeline

import (
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// This file ties each failed check to the events that show it, from the
// check's fields: the first scenario its evidence came from, the line it
// is about, and its actual answer. Its message is never read.

// evidenceMax caps the marks one check links to.
const evidenceMax = 12

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

// scenarioOf is the index of the first scenario a check's evidence came
// from (the one its message names), or -1 when it came from none, or from
// none that is drawn.
func scenarioOf(c Check, scenarios []Group) int {
	if len(c.Scenarios) == 0 {
		return -1
	}
	for i, sc := range scenarios {
		if sc.Name != "" && sc.Name == c.Scenarios[0] {
			return i
		}
	}
	return -1
}

// findEvidence ties each failed check to the events that show it: those
// whose message is the check's actual answer (as JSON, keys in any order,
// or as text), in the first scenario its evidence came from, then
// elsewhere; with no actual answer, the line it is about and the deadlines
// that ran out in that scenario.
func findEvidence(checks []Check, scenarios []Group, limits []int) evidenceIndex {
	ix := evidenceIndex{byEvent: map[[2]int][]string{}, byCheck: map[int][]EvidenceRef{}}
	for ci, c := range checks {
		if !c.Failed {
			continue
		}
		ev := &checkEvidence{ix: ix, check: c.ID, scenarios: scenarios, limits: limits}
		ev.find(c)
		ix.byCheck[ci] = ev.refs
	}
	return ix
}

// checkEvidence gathers the evidence of one failed check.
type checkEvidence struct {
	ix        evidenceIndex
	check     string // the check's id
	scenarios []Group
	limits    []int
	refs      []EvidenceRef
}

// find gathers the evidence of c: for an answer that never came, the line
// that asked and what the grader noted in the first scenario its evidence
// came from; else the events that are its actual answer; failing both,
// the timeline of that scenario.
func (ev *checkEvidence) find(c Check) {
	named := scenarioOf(c, ev.scenarios)
	answer := newActualAnswer(c.Actual)
	if missing := answer.text == "" || answer.text == "(nothing)"; missing && named >= 0 {
		ev.addMissing(named, c.Line)
		if len(ev.refs) > 0 {
			return
		}
	}
	for _, si := range searchOrder(named, len(ev.scenarios)) {
		if si != named && answer.text == "" {
			break // a missing answer is shown only where the check says
		}
		for ei, e := range ev.scenarios[si].Events {
			if len(ev.refs) == evidenceMax {
				break
			}
			if ei >= ev.limits[si] || !answer.shownBy(e) {
				continue
			}
			ev.add(si, ei)
		}
	}
	if len(ev.refs) == 0 && named >= 0 {
		ev.refs = append(ev.refs, EvidenceRef{Href: "sc-" + fmt.Sprint(named), Label: "the timeline of scenario " + ev.scenarios[named].Name})
	}
}

// addMissing adds the evidence that nothing came in scenario si: the line
// that asked (line, the one the check is about, see sentAs), and what the
// grader noted (a wait that ran out, an early end).
func (ev *checkEvidence) addMissing(si int, line string) {
	events := ev.scenarios[si].Events
	limit := ev.limits[si]
	if line != "" {
		for _, l := range splitLines(events) {
			if l.last < limit && sentAs(l.text, line) {
				ev.add(si, l.last)
				break
			}
		}
	}
	for ei, e := range events[:limit] {
		if kindOf(e) == event.Note && len(ev.refs) < evidenceMax {
			ev.add(si, ei)
		}
	}
}

// sentAs reports whether text, a line of a transcript's stdin, is line,
// a line a check is about as the grader read it: the same, or the same
// with the carriage return of a CRLF end the grader dropped (as it was
// sent, or as a cleaned transcript shows it, see Clean).
func sentAs(text, line string) bool {
	rest, ok := strings.CutPrefix(text, line)
	return ok && line != "" && (rest == "" || rest == "\r" || rest == `\r`)
}

// add links the check to event ei of scenario si, once.
func (ev *checkEvidence) add(si, ei int) {
	for _, r := range ev.refs {
		if r.Href == markID(si, ei) {
			return
		}
	}
	e := ev.scenarios[si].Events[ei]
	ev.ix.byEvent[[2]int{si, ei}] = append(ev.ix.byEvent[[2]int{si, ei}], ev.check)
	ev.refs = append(ev.refs, EvidenceRef{
		Href:  markID(si, ei),
		Label: fmt.Sprintf("scenario %s, event %d (%s at %d ms)", ev.scenarios[si].Name, ei+1, kindOf(e), e.At.Milliseconds()),
	})
}

// searchOrder is the order scenarios are searched for evidence in: the
// first the check's evidence came from (when one is), then the others in
// turn.
func searchOrder(named, n int) []int {
	order := make([]int, 0, n)
	if named >= 0 {
		order = append(order, named)
	}
	for i := 0; i < n; i++ {
		if i != named {
			order = append(order, i)
		}
	}
	return order
}

// actualAnswer is a failed check's actual answer as evidence is matched
// against it: its first line, trimmed, and the answer as canonical JSON
// when it is JSON.
type actualAnswer struct {
	text  string
	canon string
}

// newActualAnswer reads the actual answer of a check.
func newActualAnswer(actual string) actualAnswer {
	first, _, _ := strings.Cut(actual, "\n")
	a := actualAnswer{text: strings.TrimSpace(first), canon: canonicalJSON(actual)}
	if a.canon == "" {
		a.canon = canonicalJSON(a.text)
	}
	return a
}

// shownBy reports whether event e shows the answer: its message is the
// answer (as JSON, keys in any order, or as text), or, when there is no
// answer, it is a note that a wait ran out. What the grader wrote and the
// rig did are never evidence.
func (a actualAnswer) shownBy(e event.Event) bool {
	switch kindOf(e) {
	case event.Send, event.Close, event.Exit, event.Rig, event.FromServer:
		return false
	}
	if kindOf(e) == event.Note && a.text == "" {
		return deadlineRanOut(e)
	}
	if a.text == "" {
		return false
	}
	p := payload(e)
	if a.canon != "" && canonicalJSON(p) == a.canon {
		return true
	}
	return p == a.text || strings.TrimSpace(shown(e)) == a.text || (len(a.text) >= 8 && strings.Contains(shown(e), a.text))
}
