package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/clientlesson"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lessons"
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

// eventLog keeps a run's events for the page; events come from the
// reader goroutines of the run.
type eventLog struct {
	mu     sync.Mutex
	events []grading.Event
}

func (l *eventLog) add(ev grading.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.events) < grading.TranscriptEventsMax {
		l.events = append(l.events, ev)
	}
}

func (l *eventLog) all() []grading.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]grading.Event(nil), l.events...)
}

// runHTML plays the lesson's scenario (or the file named) against COMMAND,
// or the lesson's own program, as lab run does, and writes the page of the
// run to out, or to stdout. The model step is not part of the page.
func runHTML(ctx context.Context, e *env, lesson *lessons.Manifest, mode runMode, a runArgs, out string) (int, error) {
	var log eventLog
	if code, err := mode.html(ctx, lesson, a, &log); err != nil {
		return code, err
	}
	var b bytes.Buffer
	if err := report.WriteRunHTML(&b, lesson.Number, log.all()); err != nil {
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

// runServerHTML plays a server lesson's scenario and logs its events.
func runServerHTML(ctx context.Context, lesson *lessons.Manifest, a runArgs, log *eventLog) (int, error) {
	return playServerRun(ctx, lesson, a.file, a.command, func(sc *scenario.Scenario, ev client.Event) {
		log.add(grading.Event{Scenario: sc.Name, AtMS: ev.At.Milliseconds(), Kind: ev.Kind, Text: ev.Text})
	})
}

// runClientHTML plays a client lesson's scenario with the lab as the
// servers and logs its events, leaving out the rig's own configuration
// (relay sockets, free ports), which the student never writes.
func runClientHTML(ctx context.Context, lesson *lessons.Manifest, a runArgs, log *eventLog) (int, error) {
	cr, code, err := loadClientRun(lesson, a.file, a.command)
	if err != nil {
		return code, err
	}
	sc, starter, dir, self := cr.sc, cr.starter, cr.dir, cr.self
	show := func(ev grading.Event) {
		if ev.Kind == grading.EventNote && strings.HasPrefix(ev.Text, "configuration: ") {
			return
		}
		if ev.Scenario == "" {
			ev.Scenario = sc.Name
		}
		log.add(ev)
	}
	if err := clientlesson.WatchClient(ctx, sc, starter, dir, []string{self, "relay"}, show); err != nil {
		return exitCannot, err
	}
	return exitOK, nil
}
