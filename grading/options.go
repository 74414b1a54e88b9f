package grading

import (
	"io/fs"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
)

// Options say what to grade and how.
type Options struct {
	// Kinds are the lesson kinds the lesson's subject is looked up in
	// (internal/kinds names the lab's); Grade needs them, a kind's own
	// Lesson.Grade does not.
	Kinds *Kinds
	// Lesson is the lesson's number; 0 means 1.
	Lesson int
	// LessonDir, when set, is a lesson folder on disk to read the grading
	// scenarios and checks from instead of the ones built into the lab, so a
	// teacher can add a case without rebuilding anything.
	LessonDir fs.FS
	// Student starts the student's program under test (the server or the
	// client the lesson grades), once per scenario.
	Student proc.Starter
	// TimeScale multiplies every deadline; 0 means 1.
	TimeScale float64
	// Sweep replays the lesson's messages this many more times, cut at
	// random places; Cuts is the number that picks them (lab grade --cuts): the
	// same number cuts the input the same way again.
	Sweep int
	Cuts  int64
	// MaxOutput caps each output stream of each run, in bytes; 0 means 8 MiB.
	MaxOutput int64
	// OnEvent, when set, sees every event as it happens.
	OnEvent func(scenario string, ev event.Record)
	// Progress, when set, is told as each scenario starts and ends (see
	// ProgressEvent); nil tells nothing.
	Progress Progress
	// Relay is the command that joins a client under test to a stdio
	// server the lab plays (a client lesson's); nil means this lab
	// binary's "relay" (see lab/clientplay.RelayCommand).
	Relay []string
	// First names grading scenarios to play before the others, in this
	// order; the others follow in the lesson's order, and a name the
	// lesson has no scenario of is passed over. The order changes nothing
	// in the result: a kind judges each scenario's evidence, and keeps its
	// transcript, in the lesson's order whatever order it played them in.
	// It matters with StopOnceFailed, which it lets end sooner.
	First []string
	// StopOnceFailed, when set, ends the grade as soon as every check it
	// names has failed in the scenarios played so far: the scenarios left
	// are not played, and the result judges only those that were, so a
	// check that did not fail in it may have failed in one not played.
	// Confirm sets it, so that a program that hangs again is charged once
	// the scenarios that show it have run, not after the whole lesson.
	StopOnceFailed []string
	// StopOnceUnread, when set, ends the grade as soon as a scenario has
	// been played in which the program, once ready, read none of its
	// input for the whole read deadline (Result.Unread names it): such a
	// program cannot have done anything the scenario's input led to, so
	// the scenarios left would show it again and again. Confirm sets it
	// when every failure it confirms was seen only in scenarios the
	// program read none of. A kind that cannot tell what its program read
	// plays on.
	StopOnceUnread bool
}

// PlayOrder is the order in which a kind plays its scenarios, named
// names in the lesson's order, under o: the indices of those o.First
// names, in its order, then the rest in the lesson's (see Options.First).
func (o Options) PlayOrder(names []string) []int {
	order := make([]int, 0, len(names))
	taken := make([]bool, len(names))
	for _, f := range o.First {
		for i, n := range names {
			if n == f && !taken[i] {
				order, taken[i] = append(order, i), true
				break
			}
		}
	}
	for i := range names {
		if !taken[i] {
			order = append(order, i)
		}
	}
	return order
}

// Enough reports whether the grade may stop now, with tallies the
// evidence of the scenarios played so far: whether every check of
// o.StopOnceFailed has failed in one of them (see Options.StopOnceFailed).
// It is false when o.StopOnceFailed is empty.
func (o Options) Enough(tallies []*Tally) bool {
	if len(o.StopOnceFailed) == 0 {
		return false
	}
	for _, c := range o.StopOnceFailed {
		failed := false
		for _, t := range tallies {
			if t != nil && len(t.Failures[c]) > 0 {
				failed = true
				break
			}
		}
		if !failed {
			return false
		}
	}
	return true
}

// MergeTallies is one tally holding the evidence of all of ts, in their
// order: what judging their scenarios one after another into one tally
// would have given. A nil tally (a scenario not played) adds nothing.
func MergeTallies(ts []*Tally) *Tally {
	out := NewTally()
	for _, t := range ts {
		if t == nil {
			continue
		}
		for c, ok := range t.Tested {
			out.Tested[c] = out.Tested[c] || ok
		}
		for c, fs := range t.Failures {
			out.Failures[c] = append(out.Failures[c], fs...)
		}
		for c, why := range t.Skips {
			out.Skips[c] = append(out.Skips[c], why...)
		}
		for c, n := range t.DeadlineSkips {
			out.DeadlineSkips[c] += n
		}
	}
	return out
}
