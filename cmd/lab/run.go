package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/model"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lessons"
)

func runCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("run", "run [flags] [-- COMMAND [ARGS...]]", e.stderr)
	scenarioFile := fs.String("scenario", "", "play this scenario file instead of the lesson's")
	times := fs.Bool("times", false, "add a column with each event's time since the start")
	noModel := fs.Bool("no-model", false, "skip the model step")
	lessonNum := fs.Int("lesson", 1, "the lesson whose scenario to play")
	lessonDir := fs.String("lesson-dir", "", "play the lesson in this folder (its lesson.txt says it is lesson -lesson) instead of the built-in one")
	format := fs.String("format", "text", "text: print each event as it happens; html: write one page with the run drawn as a timeline")
	out := fs.String("out", "", "with -format html, write the page to this file instead of stdout")
	command, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	lesson, err := kinds.Find(*lessonNum, dirFS(*lessonDir))
	if err != nil {
		return exitCannot, usageError{err.Error()}
	}
	if err := checkRunFormat(*format, *out); err != nil {
		return exitCannot, err
	}
	player, err := kinds.Player(lesson)
	if err != nil {
		return exitInternal, err
	}
	req := play.Request{File: *scenarioFile, Command: command, Times: *times}
	if !lesson.BuiltIn() {
		// A folder with a manifest of its own: its reference serves the
		// folder's data.
		req.LessonDir = *lessonDir
	}
	if *format == "html" {
		return runHTML(ctx, e, lesson.Number, player, req, *out)
	}
	return runText(ctx, e, lesson, player, req, *noModel)
}

// runText plays the lesson's scenario as its kind's player does, printing
// what comes before the events, then each event as it happens, then the
// lesson's model step, if it has one.
func runText(ctx context.Context, e *env, lesson *lessons.Manifest, player play.Player, req play.Request, noModel bool) (int, error) {
	run, err := player.Load(req)
	if err != nil {
		return playExit(err)
	}
	// A client run shows the servers.json the student would write; the
	// rig's own configuration (relay sockets, free ports) is said in one
	// line on stderr, never printed.
	preface, note, err := run.Preface()
	if err != nil {
		return playExit(err)
	}
	io.WriteString(e.stdout, preface)
	if note != "" {
		fmt.Fprintln(e.stderr, note)
	}
	if err := run.Play(ctx, func(_ event.Event, line string) { fmt.Fprintln(e.stdout, line) }); err != nil {
		return playExit(err)
	}
	if !noModel && lesson.Model != "" {
		if err := modelStep(ctx, e, lesson); err != nil {
			return exitInternal, err
		}
	}
	return exitOK, nil
}

// playExit is the exit code that goes with an error of a play: a usage
// error is the command line's, an internal one the lab's; any other says
// the scenario or the program could not be played.
func playExit(err error) (int, error) {
	var ue play.UsageError
	switch {
	case errors.As(err, &ue):
		return exitCannot, usageError{ue.Msg}
	case play.IsInternal(err):
		return exitInternal, err
	}
	return exitCannot, err
}

// modelStep asks the lesson's question and prints the answer, or the
// recorded sample when no model answers, for whatever reason: a malformed
// AI_URL or AI_TIMEOUT included, whose usage error the printed reason shows.
func modelStep(ctx context.Context, e *env, lesson *lessons.Manifest) error {
	// The prompt's files are model/NAME; the manifest says which folder
	// "model" is.
	read := func(name string) ([]byte, error) {
		return lesson.Read(path.Join(lesson.Model, strings.TrimPrefix(name, "model/")))
	}
	p, err := model.LoadPrompt(read)
	if err != nil {
		return err
	}
	for _, l := range model.Lines(model.AskFromEnv(ctx, e.getenv, p)) {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}
