package clientlesson

import (
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientscenario"
)

// How long a client scenario waits, at time scale 1, is the player's
// (lab/clientplay's AnswerWait and deadlines). A correct client never
// waits out any of them: each wait ends as soon as what it waits for has
// happened (the answer came, the client exited, its servers ended). Only
// the timeouts the client is given, and so waits out when a server never
// answers, cost a correct client time; the scenarios keep them short, and
// derive the deadlines judged from them (see "within timeout+N").

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
