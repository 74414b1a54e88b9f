package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/mcplab/mcplab/grading/clientlesson"
	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/proc"

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
	lessonDir := fs.String("lesson-dir", "", "play the lesson in this folder (its lesson.txt says it is lesson -lesson) instead of the built-in one")
	format := fs.String("format", "text", "text: print each event as it happens; html: write one page with the run drawn as a timeline")
	out := fs.String("out", "", "with -format html, write the page to this file instead of stdout")
	command, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	lesson, err := lessons.Find(*lessonNum, dirFS(*lessonDir))
	if err != nil {
		return exitCannot, usageError{err.Error()}
	}
	if err := checkRunFormat(*format, *out); err != nil {
		return exitCannot, err
	}
	mode, err := runModeFor(lesson)
	if err != nil {
		return exitInternal, err
	}
	a := runArgs{file: *scenarioFile, command: command, times: *times, noModel: *noModel}
	if *format == "html" {
		return runHTML(ctx, e, lesson, mode, a, *out)
	}
	return mode.text(ctx, e, lesson, a)
}

// runServer plays a server lesson's scenario, printing each event as it
// happens, then the model step.
func runServer(ctx context.Context, e *env, lesson *lessons.Manifest, a runArgs) (int, error) {
	if code, err := playServerRun(ctx, lesson, a.file, a.command, func(_ *scenario.Scenario, ev client.Event) {
		fmt.Fprintln(e.stdout, ev.Line(a.times))
	}); err != nil {
		return code, err
	}
	if !a.noModel && lesson.Model != "" {
		if err := modelStep(ctx, e, lesson); err != nil {
			return exitInternal, err
		}
	}
	return exitOK, nil
}

// serverStarter starts COMMAND, or with none the lesson's reference server.
func serverStarter(command []string, reference string) (proc.Starter, error) {
	if len(command) > 0 {
		return proc.Command{Path: command[0], Args: command[1:]}, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the lab binary to start its reference server: %w", err)
	}
	return proc.Command{Path: self, Args: []string{"serve", reference}}, nil
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

// runClient shows a client lesson's client at work: the lab plays the
// scenario's servers, and the transcript shows the commands, every message
// between the client and each server, and the answers. With no COMMAND the
// client is the lab's own (lab client).
func runClient(ctx context.Context, e *env, lesson *lessons.Manifest, a runArgs) (int, error) {
	cr, code, err := loadClientRun(lesson, a.file, a.command)
	if err != nil {
		return code, err
	}
	sc, starter, dir, self := cr.sc, cr.starter, cr.dir, cr.self
	// The student reads the servers.json they would write; the rig's own
	// configuration (relay sockets, free ports) is said in one line on
	// stderr, never printed.
	config, err := studentConfig(sc)
	if err != nil {
		return exitCannot, err
	}
	fmt.Fprintf(e.stdout, "-- servers.json, as you would write it for these servers:\n%s", config)
	fmt.Fprintln(e.stderr, rigSubstitutions(sc))
	show := func(ev grading.Event) {
		if !isRigConfigNote(ev) {
			fmt.Fprintln(e.stdout, clientLine(ev, a.times))
		}
	}
	if err := clientlesson.WatchClient(ctx, sc, starter, dir, []string{self, "relay"}, show); err != nil {
		return exitCannot, err
	}
	return exitOK, nil
}

// clientLine renders one event of a client run: "you -> client" for a
// command, "client -> you" for an answer, "client -> SERVER#N" and
// "SERVER#N -> client" for the traffic, "--" for the rest. Long lines are
// cut in the middle, and what a terminal would act on is escaped.
func clientLine(ev grading.Event, times bool) string {
	var text string
	switch ev.Kind {
	case grading.EventSend:
		text = "you -> client  " + clipMiddle(ev.Text)
	case grading.EventAnswer:
		text = "client -> you  " + clipMiddle(ev.Text)
	case grading.EventStderr:
		text = "client stderr  " + clipMiddle(ev.Text)
	case grading.EventToServer:
		server, msg, _ := strings.Cut(ev.Text, " ")
		headers := ""
		if strings.HasPrefix(msg, "[") {
			if i := strings.Index(msg, "] "); i > 0 {
				headers, msg = msg[:i+2], msg[i+2:]
			}
		}
		text = "   client -> " + server + "  " + client.Printable(headers) + clipMiddle(msg)
	case grading.EventFromServer:
		server, msg, _ := strings.Cut(ev.Text, " ")
		text = "   " + server + " -> client  " + clipMiddle(msg)
	case grading.EventExit:
		text = "-- client " + ev.Text
	case grading.EventClose:
		text = "-- stdin closed"
	default:
		text = "-- " + clipMiddle(ev.Text)
	}
	if times {
		return fmt.Sprintf("%6dms %s", ev.AtMS, text)
	}
	return text
}

// clipMiddle keeps a transcript line readable: a line longer than 240
// characters keeps its start and end around a count of what was left out.
func clipMiddle(s string) string {
	s = client.Printable(s)
	r := []rune(s)
	if len(r) <= 240 {
		return s
	}
	unit := "characters"
	if len(r)-240 == 1 {
		unit = "character"
	}
	return fmt.Sprintf("%s ... [%d %s left out] ... %s", string(r[:160]), len(r)-240, unit, string(r[len(r)-80:]))
}

// clientRun is what lab run needs to play a client lesson's scenario: the
// scenario, the client to start, the lesson's files and the lab binary
// (which plays the relay).
type clientRun struct {
	sc      *clientscenario.Scenario
	starter proc.Command
	dir     fs.FS
	self    string
}

// loadClientRun reads the scenario lab run plays for a client lesson (the
// lesson's own, or -scenario FILE) and names the client: COMMAND, or the
// lab's own client. It returns the exit code that goes with an error.
func loadClientRun(lesson *lessons.Manifest, file string, command []string) (clientRun, int, error) {
	var data []byte
	var err error
	name := file
	switch {
	case file != "":
		data, err = os.ReadFile(file)
	case lesson.Run == "":
		return clientRun{}, exitCannot, usagef("lesson %d has no scenario for lab run; name one with -scenario", lesson.Number)
	default:
		name = lesson.Run
		data, err = lesson.Read(lesson.Run)
	}
	if err != nil {
		return clientRun{}, exitCannot, err
	}
	sc, err := clientscenario.Parse(strings.TrimSuffix(path.Base(name), ".txtar"), data)
	if err != nil {
		return clientRun{}, exitCannot, err
	}
	self, err := os.Executable()
	if err != nil {
		return clientRun{}, exitInternal, fmt.Errorf("finding the lab binary: %w", err)
	}
	starter := proc.Command{Path: self, Args: []string{"client", lesson.Client}}
	if len(command) > 0 {
		starter = proc.Command{Path: command[0], Args: command[1:]}
	}
	dir, err := lesson.Folder()
	if err != nil {
		return clientRun{}, exitInternal, err
	}
	return clientRun{sc: sc, starter: starter, dir: dir, self: self}, exitOK, nil
}

// playServerRun plays the scenario lab run plays for a server lesson (the
// lesson's own, or -scenario FILE) against COMMAND, or the lesson's
// reference server, and hands each event to onEvent. It returns the exit
// code that goes with an error.
func playServerRun(ctx context.Context, lesson *lessons.Manifest, file string, command []string, onEvent func(*scenario.Scenario, client.Event)) (int, error) {
	var sc *scenario.Scenario
	var err error
	if file != "" {
		sc, err = scenario.ParseFile(file)
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
		Ready:   client.ReadinessOf(lesson.Ready.Kind, lesson.Ready.Pattern, lesson.Ready.Probe),
		OnEvent: func(ev client.Event) { onEvent(sc, ev) },
	})
	if err != nil {
		return exitInternal, err
	}
	if run.StartErr != nil {
		return exitCannot, fmt.Errorf("the server did not start: %w", run.StartErr)
	}
	return exitOK, nil
}
