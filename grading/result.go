package grading

import "github.com/mcplab/mcplab/lab/event"

// Status is the verdict of one check.
type Status string

// The three verdicts a check can have. A skipped check is neither passed nor
// failed: it could not be judged (the server never started, or a check it
// depends on could not run), and it earns no points.
const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
)

// CheckResult is the verdict of one check, in the words a student reads.
type CheckResult struct {
	// ID is stable across releases: course CI and gradebooks key on it.
	ID string `json:"id"`
	// Title says in a few words what the check asks of a server.
	Title     string `json:"title"`
	Status    Status `json:"status"`
	Points    int    `json:"points"`
	MaxPoints int    `json:"max_points"`
	// Message is empty for a pass. For a failure it says what happened, what was
	// expected, which rule that breaks and how to fix it, in one paragraph.
	Message string `json:"message"`
	// Expected and Actual, when set, show the two sides of a mismatch on their
	// own (reports put them side by side).
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	// Rule names the rule that a failure breaks; Fix says how to mend it.
	Rule string `json:"rule,omitempty"`
	Fix  string `json:"fix,omitempty"`
	// Deadline is set on a failure that rests on deadlines alone (every
	// piece of evidence against the check is a wait that ran out): such a
	// failure is confirmed at a larger time scale before it is charged
	// (see Confirm). On a skip it says that every reason the check could
	// not be judged is evidence a deadline cut short, which a rerun at a
	// larger time scale may have.
	Deadline bool `json:"deadline,omitempty"`
	// Scenarios names, for a failure, the scenarios its evidence came
	// from, in the order it came (none for evidence of no one scenario):
	// the first is the one its message names. Confirm reads it to confirm
	// a deadline failure where it was seen, the timeline to find the
	// failure's evidence, and a report may show it.
	Scenarios []string `json:"scenarios,omitempty"`
	// Line is, for a failure, the line of the scenario's input the
	// failure is about, as sent (its line end dropped), when it is about
	// one: the line the message quotes first, which the timeline links to
	// when its answer never came.
	Line string `json:"line,omitempty"`
}

// Event is one timed happening of a graded run: the lab's event record
// (lab/event), which lab run shows without a grader.
type Event = event.Event

// OutcomeKind classifies how a graded run went as a whole.
type OutcomeKind string

// The outcomes of a run. Only OutcomePassed, OutcomeWrongAnswers and
// OutcomeProtocolViolation are gradable; the rest mean the grader could not
// judge the server's answers at all, which is never a fail.
const (
	OutcomePassed            OutcomeKind = "passed"             // every check passed
	OutcomeWrongAnswers      OutcomeKind = "wrong-answers"      // some answer was wrong or missing
	OutcomeProtocolViolation OutcomeKind = "protocol-violation" // stdout carried something that is not a message
	OutcomeExited            OutcomeKind = "server-exited"      // the server ended before it was done (code or signal)
	OutcomeTimeout           OutcomeKind = "timeout"            // a step or the whole run ran out of time
	OutcomeOutputCap         OutcomeKind = "output-cap"         // the server wrote more than the cap allows
	OutcomeMemory            OutcomeKind = "killed-for-memory"  // the sandbox killed the server for memory
	OutcomeCouldNotStart     OutcomeKind = "could-not-start"    // the command could not be started
	OutcomeBuildFailed       OutcomeKind = "build-failed"       // the submission's build step failed
)

// Outcome is the plain-words classification of a run.
type Outcome struct {
	Kind OutcomeKind `json:"kind"`
	// Detail says it in a sentence: "the server exited with status 2 while
	// id 1 was still waiting for its answer".
	Detail string `json:"detail"`
}

// Submission says what was graded, so a regrade of the same thing can be
// recognised and must give the same result.
type Submission struct {
	Name string `json:"name,omitempty"`
	// Commit is the git commit of the submission folder, when it is a checkout.
	Commit string `json:"commit,omitempty"`
	// Hash is a sha256 over the submission's files, when there is no commit.
	Hash string `json:"hash,omitempty"`
}

// Result is everything one grading run found.
type Result struct {
	Lesson int `json:"lesson"`
	// Program is what the student wrote, the lesson kind's Program():
	// "server", "client". A result made before the field existed has none.
	Program  string `json:"program,omitempty"`
	Gradable bool   `json:"gradable"`
	// Problem says, when Gradable is false, why the server could not be graded.
	Problem  string        `json:"problem,omitempty"`
	Score    int           `json:"score"`
	MaxScore int           `json:"max_score"`
	Outcome  Outcome       `json:"outcome"`
	Checks   []CheckResult `json:"checks"`
	// Transcript holds every event of every scenario, in order of time within
	// each scenario.
	Transcript []Event `json:"transcript"`
	// Orders are the orders of answers the scenarios assert ("2 before 1"),
	// whatever the verdict, so that a report can mark them on the timeline.
	Orders []AssertedOrder `json:"orders,omitempty"`
	// Cuts is the number that picked the chunk sweep's cuts, when one ran
	// (lab grade --cuts gives it back).
	Cuts *int64 `json:"cuts,omitempty"`
	// Flaky is set when a timed-out run was rerun and the two runs disagreed.
	Flaky bool `json:"flaky,omitempty"`
	// Confirmed, when set, says that failures resting on deadlines were
	// graded again at a larger time scale before they were charged (see
	// Confirm).
	Confirmed  *Confirmation `json:"confirmed,omitempty"`
	Submission *Submission   `json:"submission,omitempty"`
	// DurationMS is the wall time of the whole grading run.
	DurationMS int64 `json:"duration_ms"`
	// Unread names, in the lesson's order, the scenarios in which the
	// program, once ready, read none of its input for the whole read
	// deadline (a kind that cannot tell names none). It is the grader's
	// own, for confirming (see Options.StopOnceUnread), and no report
	// shows it.
	Unread []string `json:"-"`
}

// Failed lists the ids of the checks that failed, in check order.
func (r *Result) Failed() []string {
	var ids []string
	for _, c := range r.Checks {
		if c.Status == StatusFail {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// AssertedOrder is an order of answers a scenario asserts: the answer to
// First must arrive before the answer to Then.
type AssertedOrder struct {
	Scenario string `json:"scenario"`
	// First and Then are the ids as the scenario writes them in JSON: 2, "a".
	First  string   `json:"first"`
	Then   string   `json:"then"`
	Checks []string `json:"checks"`
}
