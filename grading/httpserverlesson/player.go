package httpserverlesson

import (
	"context"
	"fmt"
	"os"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/httpscenario"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lab/proc"
)

// Player plays an HTTP server lesson's scenario for lab run: two copies
// of COMMAND (or of the reference server), each exchange shown as it
// crosses. It judges nothing.
type Player struct {
	play.Source
	// Reference is the server lab serve NAME --http starts when no
	// COMMAND is given.
	Reference string
}

// Load reads the scenario and names the server to play it with.
func (p Player) Load(req play.Request) (play.Run, error) {
	name, data, err := p.Scenario(req.File)
	if err != nil {
		if req.File != "" {
			err = fmt.Errorf("reading scenario: %w", err)
		}
		return nil, err
	}
	sc, err := httpscenario.Parse(name, data)
	if err != nil {
		return nil, err
	}
	var starter proc.Starter
	if len(req.Command) > 0 {
		starter = proc.Command{Path: req.Command[0], Args: req.Command[1:], EndGroup: true}
	} else {
		self, err := os.Executable()
		if err != nil {
			return nil, play.Internal(fmt.Errorf("finding the lab binary to start its reference server: %w", err))
		}
		starter = proc.Command{Path: self, Args: ReferenceArgs(p.Reference, req.LessonDir), EndGroup: true}
	}
	return &httpRun{sc: sc, starter: starter, times: req.Times}, nil
}

// httpRun is a loaded scenario, ready to play.
type httpRun struct {
	sc      *httpscenario.Scenario
	starter proc.Starter
	times   bool
}

// Preface says what is played: two copies, one port each.
func (r *httpRun) Preface() (string, string, error) {
	return "", "The lab starts two copies of the server (a and b), each with its own port in the environment variable PORT, and plays the client.", nil
}

// Play plays the scenario and hands over each record with its line.
func (r *httpRun) Play(ctx context.Context, onEvent func(event.Event, string)) error {
	t := timingAt(1)
	l, err := newLaunch(r.starter, nil)
	if err != nil {
		return err
	}
	defer l.close()
	cs := newCopies(l, 0, t.ready)
	defer cs.close()
	run := playScenario(ctx, r.sc, cs, t, func(rec event.Record) {
		onEvent(rec.In(r.sc.Name), recordLine(rec, r.times))
	})
	if run.startErr != nil {
		return fmt.Errorf("could not start the server: %w", run.startErr)
	}
	return ctx.Err()
}
