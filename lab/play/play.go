// Package play is lab run's seam: a Player plays the scenario of one kind
// of lesson and hands each event over as it happens, with the line lab
// run prints for it. The kind of a lesson picks its player (grading.Kind's
// Player); lab run knows none of them. Server is the player of a server
// lesson's scenario (lab/stdioprobe plays it); lab/clientplay has the player
// of a client lesson's.
package play

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// Request is what lab run was asked to play.
type Request struct {
	// File is a scenario file to play instead of the lesson's own.
	File string
	// Command is the program to play it with; none means the lesson's own
	// reference program.
	Command []string
	// Times adds a column with each event's time since the start to the
	// lines.
	Times bool
	// LessonDir is the folder on disk of a lesson read from one (lab run
	// --lesson-dir, with a manifest of its own), "" for a built-in lesson:
	// a reference program that serves the lesson's data is given it.
	LessonDir string
}

// A Player plays a lesson's scenarios for lab run.
type Player interface {
	// Load reads and checks the scenario req names, and the program to
	// play it with, before anything runs.
	Load(req Request) (Run, error)
}

// A Run is a loaded scenario, ready to play.
type Run interface {
	// Preface is what lab run prints before the events, as text: a block
	// for stdout and a line for stderr, each "" when there is none.
	Preface() (stdout, stderr string, err error)
	// Play plays the scenario and hands each event to onEvent as it
	// happens, with the line lab run prints for it. Events of the lab's
	// own making that a student never writes (the rig's configuration)
	// are not handed over.
	Play(ctx context.Context, onEvent func(ev event.Event, line string)) error
}

// Source is where a player finds the scenario lab run plays: a file the
// user names, else the lesson's own.
type Source struct {
	// Lesson is the lesson's number, for what lab run says.
	Lesson int
	// Run names the lesson's scenario for lab run, a file for Read; ""
	// when the lesson has none.
	Run string
	// Read reads a file of the lesson.
	Read func(name string) ([]byte, error)
}

// Scenario reads the scenario to play: file when it is named, else the
// lesson's own. Its name is the file's, without ".txtar". A lesson with
// no scenario for lab run and no file named is a UsageError.
func (s Source) Scenario(file string) (name string, data []byte, err error) {
	if file != "" {
		data, err = os.ReadFile(file)
		return strings.TrimSuffix(filepath.Base(file), ".txtar"), data, err
	}
	if s.Run == "" {
		return "", nil, UsageError{fmt.Sprintf("lesson %d has no scenario for lab run; name one with -scenario", s.Lesson)}
	}
	data, err = s.Read(s.Run)
	return strings.TrimSuffix(path.Base(s.Run), ".txtar"), data, err
}

// UsageError is an error in what lab run was asked: its command line, not
// the lab.
type UsageError struct{ Msg string }

// Error is the message, as lab run prints it before the pointer to its
// help.
func (e UsageError) Error() string { return e.Msg }

// internalError marks the lab's own failure.
type internalError struct{ err error }

func (e internalError) Error() string { return e.err.Error() }
func (e internalError) Unwrap() error { return e.err }

// Internal marks err as the lab's own failure, not a scenario or a
// program that could not be played.
func Internal(err error) error {
	if err == nil {
		return nil
	}
	return internalError{err}
}

// IsInternal says err is the lab's own failure (see Internal).
func IsInternal(err error) bool {
	var ie internalError
	return errors.As(err, &ie)
}
