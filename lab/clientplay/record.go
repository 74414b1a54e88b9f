package clientplay

import (
	"time"

	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/rig"
)

// Answer is one line the client wrote to stdout, as far as it was kept
// (see stream).
type Answer struct {
	// At is when it came, on the rig's clock.
	At time.Duration
	// Text is the line without its end, as far as it was kept.
	Text string
	// Value is the line as a JSON object; nil when it is not one, or was
	// cut.
	Value map[string]any
	// Size is the line's size in bytes, its end included; Cut is how many
	// of them were not kept (over LineMax); Dropped says it came past the
	// stream's cap, and was counted, not kept.
	Size, Cut int64
	Dropped   bool
}

// Record is what one client scenario showed: the commands and the answers
// on the rig's clock, the traffic the rig saw, how the client ended, and
// what its bridge reported. It says what happened; judging it is the
// grader's.
type Record struct {
	// Scenario is the scenario played, and Aliases its servers by alias.
	Scenario *clientscenario.Scenario
	Aliases  map[string]clientscenario.Server
	// Tools names, by alias, every tool its server offers, when that is
	// known (see Server.Tools).
	Tools map[string][]string
	// Scale is the time scale the play ran at.
	Scale float64
	// Sent is when each command was written; shorter when the run stopped
	// early.
	Sent []time.Duration
	// Answers are the answers by command; nil where none came.
	Answers []*Answer
	// Extra are the lines beyond one per command; ExtraCut counts more of
	// them, past the stdout cap, not kept.
	Extra    []string
	ExtraCut int
	// Traffic is every event the rig saw, and Stderr the client's stderr
	// lines.
	Traffic []event.Record
	Stderr  []string
	// ClosedAt is when stdin was closed; -1 if it never was.
	ClosedAt time.Duration
	// Exit is how the client ended, at ExitAt (-1 when it had to be
	// killed); Exited says it ended by itself once its stdin closed, and
	// Early that it ended, or stopped answering, before answering every
	// command.
	Exit   proc.Exit
	ExitAt time.Duration
	Exited bool
	Early  bool
	// Killed says why the player killed the client, if it did.
	Killed string
	// LeftOpen lists the stdio servers still running after the grace.
	LeftOpen []string
	// Bridged says the client ran behind a bridge, whose report of what
	// the client left running when it exited is Report. Silent, when not
	// 0, is how long after the client's stdin closed the bridge was found
	// to answer nothing (it had been stopped). Cancelled says the play's
	// context had ended by the time the report was taken.
	Bridged   bool
	Report    rig.Report
	Silent    time.Duration
	Cancelled bool
	// StartErr is why the client could not be started; nothing else is
	// set then.
	StartErr error
	// Events are the scenario's events, within the transcript's caps, in
	// the order they happened.
	Events []event.Event
}
