package clientplay

import (
	"time"

	"github.com/mcplab/mcplab/lab/clientscenario"
)

// The deadlines of a client play at time scale 1: how long the client may
// take beyond its servers' timeouts before the player stops waiting (all
// deadlines scale). None of them is judged: each ends as soon as what it
// waits for happened (the answer came, the client exited, its servers
// ended), so a correct client never waits one out. What it writes is
// bounded by the caps of streams.go.
const (
	// DefaultCallBudget is how long a client may take to answer a command
	// when no server of the scenario gives a timeout.
	DefaultCallBudget = 30 * time.Second
	// AnswerMargin is how long past its longest timeout a client has to
	// answer a command.
	AnswerMargin = 10 * time.Second
	// ExitDeadline is how long a client has to exit once its stdin
	// closed, and its bridge to report.
	ExitDeadline = 15 * time.Second
	// ExitDeadlineMax is how long at most a client has to exit once its
	// stdin closed when it keeps writing output: the exit deadline counts
	// from the last of its output the player read (see exitWatch).
	ExitDeadlineMax = 4 * ExitDeadline
	// TeardownGrace is how long its stdio servers have to end once it
	// exited.
	TeardownGrace = 5 * time.Second
)

// AnswerWait is how long the player waits for the answer to command i
// (from 0) at time scale 1 before it stops the run: the longest timeout
// the client was given (or DefaultCallBudget, with none) and AnswerMargin
// for the client to answer once it passed, or longer when a "within" line
// of the command allows longer.
func AnswerWait(sc *clientscenario.Scenario, i int) time.Duration {
	wait := CallBudget(sc) + AnswerMargin
	for _, e := range sc.Expect {
		if e.Command == i+1 && e.Kind == "within" {
			wait = max(wait, e.Within)
		}
	}
	return wait
}

// CallBudget is how long a client may take to answer one command of the
// scenario at time scale 1: its longest server timeout, or, with none
// given, DefaultCallBudget.
func CallBudget(sc *clientscenario.Scenario) time.Duration {
	budget := time.Duration(0)
	for _, s := range sc.Servers {
		budget = max(budget, s.Timeout)
	}
	if budget == 0 {
		budget = DefaultCallBudget
	}
	return budget
}
