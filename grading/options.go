package grading

import (
	"io/fs"

	"github.com/mcplab/mcplab/lab/client"
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
	// seeded random places; Seed seeds the cuts.
	Sweep int
	Seed  int64
	// MaxOutput caps each output stream of each run, in bytes; 0 means 8 MiB.
	MaxOutput int64
	// OnEvent, when set, sees every event as it happens.
	OnEvent func(scenario string, ev client.Event)
	// Progress, when set, is told as each scenario starts and ends (see
	// ProgressEvent); nil tells nothing.
	Progress Progress
	// Relay is the command that joins a client under test to a stdio
	// server the lab plays (a client lesson's); nil means this lab
	// binary's "relay" (see lab/clientplay.RelayCommand).
	Relay []string
}
