package timeline

import (
	"fmt"
	"html/template"
	"io"

	"github.com/mcplab/mcplab/lab/event"
)

// This file is the package's way in: what a page of timelines holds, what
// a grader's judgement adds to it (Check, Order, Judged), and Draw and
// WriteRun, which make one.

// Page is what a page of timelines shows: its title and heading, its
// style, and per scenario of the transcript a timeline and the events as
// lines. A page that shows more (the grade page) embeds it.
type Page struct {
	Title   string
	Heading string
	Style   template.CSS
	// Client is set for a client lesson's transcript (see
	// ClientTranscript): its lanes and words are a client's.
	Client     bool
	Scenarios  []*scenarioTimeline
	Transcript []Transcript
}

// Transcript is one scenario's transcript as plain lines.
type Transcript struct {
	Name  string
	Lines string
}

// transcriptMax caps one scenario's transcript block, in bytes.
const transcriptMax = 256 << 10

// Check is a check of a graded run as the timeline marks it, from its
// result's fields (grading.CheckResult): a failed check's evidence is, in
// the first scenario its evidence came from, the line it is about and the
// notes that a wait ran out, or the events that are its actual answer.
type Check struct {
	ID string
	// Scenarios names the scenarios the check's evidence came from, in
	// the order it came; the first is the one its message names.
	Scenarios []string
	// Line is the line of the scenario's input a failure is about, as
	// sent, when it is about one.
	Line   string
	Actual string
	Failed bool
}

// Order is an order of answers a scenario asserts: the answer to First
// before the answer to Then (ids as the scenario writes them in JSON),
// which Checks judge.
type Order struct {
	Scenario    string
	First, Then string
	Checks      []string
}

// Judged is what a grader found of a transcript that its timelines mark:
// its checks and the orders its scenarios assert. A run that is not
// graded has none.
type Judged struct {
	Checks []Check
	Orders []Order
}

// Draw lays out events (already cleaned, see Clean) as a page of
// timelines, one a scenario, with what j judged marked on them, and says
// per check of j the marks that are its evidence. Events the rig saw that
// an older version kept as words alone are read back into fields first
// (see event.FromOlder).
func Draw(events []event.Event, j Judged) (Page, [][]EvidenceRef) {
	events = event.FromOlder(events)
	p := Page{Style: template.CSS(CSS), Client: ClientTranscript(events)}
	scenarios := Groups(events)
	limits := markLimits(scenarios)
	ev := findEvidence(j.Checks, scenarios, limits)
	wrong := func(e event.Event) string {
		if kindOf(e) == event.Answer && httpCopy(e) == "" && !parseMessage(e.Text).object && !p.Client {
			return "this line on stdout is not a JSON-RPC message"
		}
		return ""
	}
	orders := map[string][]Order{}
	for _, o := range j.Orders {
		orders[o.Scenario] = append(orders[o.Scenario], o)
	}
	for i, sc := range scenarios {
		p.Scenarios = append(p.Scenarios, buildTimeline(i, sc, limits[i], p.Client, ev, wrong, orders[sc.Name]))
		p.Transcript = append(p.Transcript, Transcript{Name: sc.Name, Lines: TranscriptBlock(sc, transcriptMax, asIs)})
	}
	evidence := make([][]EvidenceRef, len(j.Checks))
	for i := range j.Checks {
		evidence[i] = ev.byCheck[i]
	}
	return p, evidence
}

// asIs is the escape of text that needs none: html/template escapes it.
func asIs(s string) string { return s }

// WriteRun writes the page of a lab run of lesson: the events of the
// scenarios played against a program (no checks, no score), drawn as
// timelines, each with its table of events and its transcript; a client
// lesson's events get a lane per server. A page that fails to render
// writes nothing.
func WriteRun(w io.Writer, lesson int, events []event.Event) error {
	p, _ := Draw(Clean(events, event.Bound), Judged{})
	p.Title = fmt.Sprintf("Lesson %d: lab run", lesson)
	if len(p.Scenarios) == 1 {
		p.Title += ", scenario " + p.Scenarios[0].Name
	}
	p.Heading = p.Title
	if err := Render(w, runTemplate, p, "run page"); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// runTemplate is the page of lab run, parsed once; templates are
// immutable after parsing and safe to share.
var runTemplate = template.Must(NewTemplate("run", ""))
