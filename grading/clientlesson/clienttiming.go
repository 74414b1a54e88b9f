package clientlesson

import (
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientscenario"
)

// How long a client scenario waits, at time scale 1. A correct client
// never waits out any of these: each wait ends as soon as what it waits
// for has happened (the answer came, the client exited, its servers
// ended). Only the timeouts the client is given, and so waits out when a
// server never answers, cost a correct client time; the scenarios keep
// them short, and derive the deadlines judged from them (see
// answerWait and "within timeout+N").

// answerWait is how long the grader waits for the answer to command i
// (from 0) at time scale 1 before it stops the run: the longest timeout
// the client was given (or the grader's default, with none) and
// answerMargin for the client to answer once it passed, or longer when a
// "within" line of the command allows longer.
func answerWait(sc *clientscenario.Scenario, i int) time.Duration {
	wait := callBudget(sc) + answerMargin
	for _, e := range sc.Expect {
		if e.Command == i+1 && e.Kind == "within" {
			wait = max(wait, e.Within)
		}
	}
	return wait
}

// stopMoment is about how long a correct client waits for a stdio server
// to exit by itself, once its stdin is closed, before it kills it: the
// rig's stdio servers never exit by themselves, so a client always waits
// this long, once per scenario (it ends its servers at once).
const stopMoment = 500 * time.Millisecond

// budget is the longest a client scenario's deadlines let it last under
// the time scale (0 means 1): what ClientBudget counts for a lesson of
// this scenario alone.
func scenarioBudget(sc *clientscenario.Scenario, scale float64) time.Duration {
	alone := &Lesson{Scenarios: []*clientscenario.Scenario{sc}}
	return grading.ScaleBy(alone.Budget(0, 0), scale)
}
