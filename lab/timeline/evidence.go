package timeline

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// This file ties each failed check to the events that show it, from what
// the check says in prose: the scenario its message names, the line it
// quotes, and its actual answer.

// evidenceMax caps the marks one check links to.
const evidenceMax = 12

// quotedLine finds the line a check's message quotes: line 3 `{"id":…}`.
var quotedLine = regexp.MustCompile("line [0-9]+ `([^`]*)`")

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

// find gathers the evidence of c: for an answer that never came, what the
// grader noted in the scenario the check names; else the events that are
// its actual answer; failing both, the timeline of the scenario it names.
func (ev *checkEvidence) find(c Check) {
	named := scenarioNamed(c.Message, ev.scenarios)
	answer := newActualAnswer(c.Actual)
	if missing := answer.text == "" || answer.text == "(nothing)"; missing && named >= 0 {
		ev.addMissing(named, c.Message)
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
// that asked (the one the check's message quotes), and what the grader
// noted (a wait that ran out, an early end).
func (ev *checkEvidence) addMissing(si int, msg string) {
	events := ev.scenarios[si].Events
	limit := ev.limits[si]
	if q := quotedLine.FindStringSubmatch(msg); q != nil {
		want := strings.TrimSuffix(q[1], "...")
		for _, l := range splitLines(events) {
			if l.last < limit && want != "" && strings.HasPrefix(l.text, want) {
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
// one named (when one is), then the others in turn.
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
