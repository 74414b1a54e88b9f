package play

import (
	"context"
	"fmt"
	"os"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
)

// Server plays a server lesson's scenario with the lab's scripted client
// (lab/stdioprobe) against COMMAND, or the lesson's reference server.
type Server struct {
	Source
	// Reference is the lab's server `lab serve Reference` starts when no
	// COMMAND is given.
	Reference string
	// Ready says when the server is ready for the scenario's first step.
	Ready stdioprobe.Readiness
}

// Load reads the scenario and names the server to play it with.
func (p Server) Load(req Request) (Run, error) {
	name, data, err := p.Scenario(req.File)
	if err != nil {
		if req.File != "" {
			err = fmt.Errorf("reading scenario: %w", err)
		}
		return nil, err
	}
	sc, err := scenario.Parse(name, data)
	if err != nil {
		return nil, err
	}
	starter, err := serverStarter(req.Command, p.Reference, req.LessonDir)
	if err != nil {
		return nil, err
	}
	return &serverRun{sc: sc, starter: starter, ready: p.Ready, times: req.Times}, nil
}

// serverStarter starts COMMAND, or with none the lesson's reference server,
// given the lesson's folder lessonDir when it is set.
func serverStarter(command []string, reference, lessonDir string) (proc.Starter, error) {
	if len(command) > 0 {
		return proc.Command{Path: command[0], Args: command[1:]}, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the lab binary to start its reference server: %w", err)
	}
	args := []string{"serve", reference}
	if lessonDir != "" {
		args = []string{"serve", "--lesson-dir", lessonDir, reference}
	}
	return proc.Command{Path: self, Args: args}, nil
}

// serverRun is a server lesson's scenario, ready to play.
type serverRun struct {
	sc      *scenario.Scenario
	starter proc.Starter
	ready   stdioprobe.Readiness
	times   bool
}

// Preface is nothing: a server run shows only its events.
func (r *serverRun) Preface() (string, string, error) { return "", "", nil }

// Play plays the scenario and hands over each event with its line (see
// event.Record's Line).
func (r *serverRun) Play(ctx context.Context, onEvent func(event.Event, string)) error {
	run, err := stdioprobe.Play(ctx, r.sc, r.starter, stdioprobe.Options{
		Ready: r.ready,
		OnEvent: func(ev event.Record) {
			onEvent(ev.In(r.sc.Name), ev.Line(r.times))
		},
	})
	if err != nil {
		return Internal(err)
	}
	if run.StartErr != nil {
		return fmt.Errorf("the server did not start: %w", run.StartErr)
	}
	return nil
}
