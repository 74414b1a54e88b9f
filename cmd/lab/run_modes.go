package main

import (
	"context"
	"fmt"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lessons"
)

// runArgs are what lab run was asked to play: a scenario file instead of
// the lesson's, the program to play it with (none: the lesson's own), and
// how to show it.
type runArgs struct {
	file    string
	command []string
	times   bool // a column with each event's time
	noModel bool // skip the model step
}

// runMode is how lab run plays a lesson whose student writes one kind of
// program: as text, each event as it happens, or into the events of a
// page.
type runMode struct {
	text func(ctx context.Context, e *env, lesson *lessons.Manifest, a runArgs) (int, error)
	html func(ctx context.Context, lesson *lessons.Manifest, a runArgs, log *eventLog) (int, error)
}

// runModes are lab run's modes by the program the student writes (see
// grading.Kind's Program).
func runModes() map[string]runMode {
	return map[string]runMode{
		"server": {text: runServer, html: runServerHTML},
		"client": {text: runClient, html: runClientHTML},
	}
}

// runModeFor is the mode that plays the lesson, as its kind says.
func runModeFor(lesson *lessons.Manifest) (runMode, error) {
	program, err := kinds.Program(lesson)
	if err != nil {
		return runMode{}, err
	}
	mode, ok := runModes()[program]
	if !ok {
		return runMode{}, fmt.Errorf("lesson %d: lab run cannot play a lesson whose student writes a %s", lesson.Number, program)
	}
	return mode, nil
}
