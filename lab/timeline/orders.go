package timeline

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/wire"
)

// This file marks on a server lesson's timeline the orders its scenario
// asserts ("the answer to 2 before the answer to 1"), whether the server
// kept them or not; the overtakes noteOvertake notes are what happened, these
// are what the lesson asks.

// Colours of an asserted order, as SVG presentation attributes: the page's
// --ok and --bad.
const (
	assertedKeptColour   = "#1a7f37"
	assertedBrokenColour = "#c62828"
)

// assertedOrder is one order the scenario asserts, with what happened.
type assertedOrder struct {
	First, Then string // the two ids, as the scenario writes them
	State       string // "kept", or "broken" (then came first, or first never came)
	Text        string // what the lesson asserts and what happened, in words
	D           string // the arc joining the two answers, when both are drawn
	Colour      string
	Dash        string // stroke-dasharray of the arc: "" when kept
	Tag         *tag   // the label drawn, or nil when neither answer is drawn
	Anchor      string // the label's text-anchor: middle over an arc, start beside a mark
}

// firstAnswers is, by loose id (1 and "1" alike, as the grader matches
// them), the index of the first answer with that id.
func firstAnswers(events []event.Event) map[string]int {
	at := map[string]int{}
	for ei, e := range events {
		if kindOf(e) != event.Answer {
			continue
		}
		msg := lineMessage(e)
		if !msg.object || !msg.hasID || !msg.response {
			continue
		}
		key := wire.LooseIDKey(json.RawMessage(msg.id))
		if _, ok := at[key]; !ok {
			at[key] = ei
		}
	}
	return at
}

// markAsserted adds to t each order the scenario asserts: the fact in
// words, and on the timeline an arc from the answer that must come first to
// the one that must come after (green when kept, dashed red when not), or a
// tag beside the one answer that came.
func markAsserted(t *scenarioTimeline, events []event.Event, marks []*mark, orders []Order) {
	if len(orders) == 0 {
		return
	}
	answers := firstAnswers(events)
	for _, o := range orders {
		a, okFirst, b, okThen := o.answered(answers)
		m := assertedOrder{First: o.First, Then: o.Then, State: "kept", Colour: assertedKeptColour}
		if !o.kept(a, okFirst, b, okThen) {
			m.State, m.Colour, m.Dash = "broken", assertedBrokenColour, "4 2"
		}
		m.Text = assertedText(o, events, a, okFirst, b, okThen)
		label := fmt.Sprintf("asserted: %s before %s", o.First, o.Then)
		var first, then *mark
		if okFirst && marks[a].Drawn {
			first = marks[a]
		}
		if okThen && marks[b].Drawn {
			then = marks[b]
		}
		switch {
		case first != nil && then != nil:
			x1, y1 := first.X+first.W/2, first.Y
			x2, y2 := then.X+then.W/2, then.Y
			top := min(y1, y2) - 12
			m.D = fmt.Sprintf("M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f", x1, y1, x1, top, x2, top, x2, y2)
			m.Tag, m.Anchor = &tag{X: (x1 + x2) / 2, Y: top - 1, Text: label}, "middle"
		case first != nil:
			m.Tag, m.Anchor = &tag{X: first.X + first.W + 2, Y: first.Y - 2, Text: label + " (no answer to " + o.Then + ")"}, "start"
		case then != nil:
			m.Tag, m.Anchor = &tag{X: then.X + then.W + 2, Y: then.Y - 2, Text: label + " (no answer to " + o.First + ")"}, "start"
		}
		t.Asserted = append(t.Asserted, m)
	}
}

// answered gives the index of the first answer to each of the order's two
// ids, and whether there is one.
func (o Order) answered(answers map[string]int) (a int, okFirst bool, b int, okThen bool) {
	a, okFirst = answers[wire.LooseIDKey(json.RawMessage(o.First))]
	b, okThen = answers[wire.LooseIDKey(json.RawMessage(o.Then))]
	return a, okFirst, b, okThen
}

// kept reports whether the order held: the first answer came, and the
// second did not come before it.
func (Order) kept(a int, okFirst bool, b int, okThen bool) bool {
	return okFirst && !(okThen && b < a)
}

// Asserted says whether the order o held in a scenario's events and, in
// the words the page lists under its timeline, what the lesson asserts and
// what happened (event numbers count the scenario's events from 1), for a
// report that shows no timeline.
func Asserted(o Order, events []event.Event) (kept bool, text string) {
	a, okFirst, b, okThen := o.answered(firstAnswers(events))
	return o.kept(a, okFirst, b, okThen), assertedText(o, events, a, okFirst, b, okThen)
}

// assertedText says what the lesson asserts and what happened: the times
// of the two answers (events a and b), or which one never came.
func assertedText(o Order, events []event.Event, a int, okFirst bool, b int, okThen bool) string {
	ask := fmt.Sprintf("The lesson asserts the answer to id %s before the answer to id %s (%s)", o.First, o.Then, strings.Join(o.Checks, ", "))
	at := func(id string, ei int) string {
		return fmt.Sprintf("id %s was answered at %d ms (event %d)", id, events[ei].At.Milliseconds(), ei+1)
	}
	switch {
	case okFirst && okThen && a < b:
		return fmt.Sprintf("%s: %s, and %s, after it, as asserted.", ask, at(o.First, a), at(o.Then, b))
	case okFirst && okThen:
		return fmt.Sprintf("%s: %s, before %s: the asserted order is broken.", ask, at(o.Then, b), at(o.First, a))
	case okFirst:
		return fmt.Sprintf("%s: %s, and id %s was not answered before the scenario ended: id %s came first, as asserted.", ask, at(o.First, a), o.Then, o.First)
	case okThen:
		return fmt.Sprintf("%s: id %s was not answered before the scenario ended, while %s: the asserted order is broken.", ask, o.First, at(o.Then, b))
	}
	return fmt.Sprintf("%s: neither id %s nor id %s was answered before the scenario ended: the asserted order is broken.", ask, o.First, o.Then)
}
