package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lab/timeline"
)

// runFormats are the formats lab run writes: text, the events as lines as
// they happen; html, one page with the run drawn as a timeline.
var runFormats = []string{"text", "html"}

// checkRunFormat refuses a format lab run does not write, and an --out
// that cannot be written (found before anything runs).
func checkRunFormat(format, out string) error {
	switch format {
	case "text":
		if out != "" {
			return usagef("-out needs -format html (the text format prints the events as they happen)")
		}
		return nil
	case "html":
		if out != "" {
			if err := capture.CheckNew(out); err != nil {
				return fmt.Errorf("-out: %w (nothing was run)", err)
			}
		}
		return nil
	}
	return usagef("unknown format %q for lab run; the formats are %s", format, strings.Join(runFormats, ", "))
}

// eventLog keeps a run's events for the page, up to a scenario's
// transcript cap; events come from the reader goroutines of the run.
type eventLog struct {
	mu     sync.Mutex
	events []event.Event
}

func (l *eventLog) add(ev event.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.events) < event.ScenarioEventsMax {
		l.events = append(l.events, ev)
	}
}

func (l *eventLog) all() []event.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event.Event(nil), l.events...)
}

// runHTML plays the lesson's scenario (or the file named) against COMMAND,
// or the lesson's own program, as lab run does, and writes the page of the
// run to out, or to stdout. The model step is not part of the page.
func runHTML(ctx context.Context, e *env, lesson int, player play.Player, req play.Request, out string) (int, error) {
	run, err := player.Load(req)
	if err != nil {
		return playExit(err)
	}
	var log eventLog
	if err := run.Play(ctx, func(ev event.Event, _ string) { log.add(ev) }); err != nil {
		return playExit(err)
	}
	var b bytes.Buffer
	if err := timeline.WriteRun(&b, lesson, log.all()); err != nil {
		return exitInternal, err
	}
	if out == "" {
		_, err := e.stdout.Write(b.Bytes())
		return exitOK, err
	}
	if err := capture.WriteNew(out, b.Bytes()); err != nil {
		return exitCannot, fmt.Errorf("writing the page: %w", err)
	}
	fmt.Fprintf(e.stderr, "lab run: wrote %s (%d events)\n", out, len(log.all()))
	return exitOK, nil
}
