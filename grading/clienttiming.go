package grading

import "time"

// How long a client scenario waits, at time scale 1. A correct client
// never waits out any of these: each wait ends as soon as what it waits
// for has happened (the answer came, the client exited, its servers
// ended). Only the timeouts the client is given, and so waits out when a
// server never answers, cost a correct client time; the scenarios keep
// them short, and derive the deadlines judged from them (see
// ClientScenario.answerWait and "within timeout+N").

// declaredTimeout is the longest timeoutMs the scenario gives the client
// for one of its servers, at time scale 1; 0 when it gives none.
func (sc *ClientScenario) declaredTimeout() time.Duration {
	var d time.Duration
	for _, s := range sc.Servers {
		d = max(d, s.Timeout)
	}
	return d
}

// answerWait is how long the grader waits for the answer to command i
// (from 0) at time scale 1 before it stops the run: the longest timeout
// the client was given (or the grader's default, with none) and
// answerMargin for the client to answer once it passed, or longer when a
// "within" line of the command allows longer.
func (sc *ClientScenario) answerWait(i int) time.Duration {
	wait := sc.callBudget() + answerMargin
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

// hasStdio reports whether the scenario has a stdio server, which the
// client has to end when its stdin ends.
func (sc *ClientScenario) hasStdio() bool {
	for _, s := range sc.Servers {
		if s.Transport == "stdio" && !s.Down {
			return true
		}
	}
	return false
}
