package main

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lab/model"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lessons"
)

func runCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("run", "run [flags] [-- COMMAND [ARGS...]]", e.stderr)
	scenarioFile := fs.String("scenario", "", "play this scenario file instead of the lesson's")
	times := fs.Bool("times", false, "add a column with each event's time since the start")
	noModel := fs.Bool("no-model", false, "skip the model step")
	lessonNum := fs.Int("lesson", 1, "the lesson whose scenario to play")
	command, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	lesson, err := lessons.Get(*lessonNum)
	if err != nil {
		return exitCannot, usageError{err.Error()}
	}
	var sc *scenario.Scenario
	if *scenarioFile != "" {
		sc, err = scenario.ParseFile(*scenarioFile)
	} else {
		if lesson.Run == "" {
			return exitCannot, usagef("lesson %d has no scenario for lab run; name one with -scenario", lesson.Number)
		}
		var data []byte
		data, err = lesson.Read(lesson.Run)
		if err == nil {
			sc, err = scenario.Parse(strings.TrimSuffix(path.Base(lesson.Run), ".txtar"), data)
		}
	}
	if err != nil {
		return exitCannot, err
	}
	starter, err := serverStarter(command, lesson.Server)
	if err != nil {
		return exitCannot, err
	}
	run, err := client.Play(ctx, sc, starter, client.Options{
		Ready:   grading.ReadinessFor(lesson),
		OnEvent: func(ev client.Event) { fmt.Fprintln(e.stdout, ev.Line(*times)) },
	})
	if err != nil {
		return exitInternal, err
	}
	if run.StartErr != nil {
		return exitCannot, fmt.Errorf("the server did not start: %w", run.StartErr)
	}
	if !*noModel && lesson.Model != "" {
		if err := modelStep(ctx, e, lesson); err != nil {
			return exitInternal, err
		}
	}
	return exitOK, nil
}

// serverStarter starts COMMAND, or with none the lesson's reference server.
func serverStarter(command []string, reference string) (client.Starter, error) {
	if len(command) > 0 {
		return client.Command{Path: command[0], Args: command[1:]}, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the lab binary to start its reference server: %w", err)
	}
	return client.Command{Path: self, Args: []string{"serve", reference}}, nil
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
