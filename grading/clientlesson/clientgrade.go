package clientlesson

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientplay"
	"github.com/mcplab/mcplab/lessons"
)

// gradeClient grades a client lesson: for each scenario the lab plays its
// servers, gives the client their configuration and its commands, and
// then judges the answers and every byte the client sent. It plays the
// scenarios in the order opts.First asks for, stopping early under
// opts.StopOnceFailed (see grading.Options).
func gradeClient(ctx context.Context, lesson *Lesson, opts grading.Options, started time.Time) (*grading.Result, error) {
	launch, err := clientplay.NewLaunch(opts.Student, clientplay.Options{Relay: opts.Relay, Servers: lesson.servers, MaxOutput: opts.MaxOutput})
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %w", lesson.Manifest().Number, err)
	}
	defer launch.Close()
	dir, err := lessonFolder(lesson, opts.LessonDir)
	if err != nil {
		return nil, err
	}
	judged := judgesFor(lesson.Checks())
	originalName := grading.Served(lesson.Checks(), judgeNameOriginalName)
	res := &grading.Result{Lesson: lesson.Manifest().Number, Gradable: true}
	// Each scenario is judged into a tally of its own, and its events kept
	// apart, so that whatever order opts asks for (grading.Options.First),
	// the evidence is judged and the transcript kept in the lesson's order.
	names := make([]string, len(lesson.Scenarios))
	for i, sc := range lesson.Scenarios {
		names[i] = sc.Name
	}
	tallies := make([]*grading.Tally, len(lesson.Scenarios))
	judgedRuns := make([]*clientRun, len(lesson.Scenarios))
	events := make([][]grading.Event, len(lesson.Scenarios))
	var runs []*clientRun
	// played puts what the scenarios played so far saw into res, in the
	// lesson's order.
	played := func() {
		for i := range lesson.Scenarios {
			res.Transcript = append(res.Transcript, events[i]...)
			if judgedRuns[i] != nil {
				runs = append(runs, judgedRuns[i])
			}
		}
	}
	for n, i := range opts.PlayOrder(names) {
		sc := lesson.Scenarios[i]
		var onEvent func(grading.Event)
		if opts.OnEvent != nil {
			onEvent = func(ev grading.Event) {
				opts.OnEvent(ev.Scenario, ev.Record)
			}
		}
		opts.ScenarioStarted(sc.Name, n+1, len(lesson.Scenarios), scenarioBudget(sc, opts.TimeScale))
		rec, err := launch.Play(ctx, sc, dir, opts.TimeScale, onEvent)
		opts.ScenarioEnded(sc.Name)
		if err != nil {
			return nil, fmt.Errorf("playing scenario %s: %w", sc.Name, err)
		}
		run := judgedRun(rec)
		events[i] = sortedEvents(run.Events)
		if run.StartErr != nil {
			played()
			return res.CouldNotStart(lesson.Checks(), "the client could not be started: "+run.StartErr.Error(), started), nil
		}
		judgedRuns[i] = run
		tallies[i] = grading.NewTally()
		judgeClientExpected(run, tallies[i], originalName)
		for _, judge := range judged {
			judge(run, tallies[i])
		}
		if why := run.gaveUpUnhindered(); why != "" {
			tallies[i].RestOnDeadline(why)
		}
		if opts.Enough(tallies) {
			break
		}
	}
	played()
	t := grading.MergeTallies(tallies)
	res.Judge(lesson.Checks(), t)
	res.Outcome = classifyClient(runs, res)
	res.DurationMS = time.Since(started).Milliseconds()
	grading.BoundResult(res)
	return res, nil
}

// lessonFolder is the folder a lesson's servers read their data from.
func lessonFolder(lesson *Lesson, dir fs.FS) (fs.FS, error) {
	if dir != nil {
		return dir, nil
	}
	if lesson.Manifest().Dir == "" {
		return nil, nil
	}
	sub, err := fs.Sub(lessons.FS(), lesson.Manifest().Dir)
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %w", lesson.Manifest().Number, err)
	}
	return sub, nil
}

// sortedEvents orders a run's events by time, keeping the order of equal
// times.
func sortedEvents(evs []grading.Event) []grading.Event {
	out := append([]grading.Event(nil), evs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].At < out[j-1].At; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// classifyClient names, in plain words, how a client's runs went.
func classifyClient(runs []*clientRun, res *grading.Result) grading.Outcome {
	for _, r := range runs {
		if r.ExitAt >= 0 && !r.Exited && r.Early {
			return grading.Outcome{Kind: grading.OutcomeExited, Detail: fmt.Sprintf("In scenario %s the client %s before it had answered every command.", r.Scenario.Name, r.Exit)}
		}
	}
	for _, r := range runs {
		if r.Early {
			return grading.Outcome{Kind: grading.OutcomeTimeout, Detail: fmt.Sprintf("In scenario %s the client stopped answering: %s.", r.Scenario.Name, strings.TrimPrefix(r.whyNoAnswer(), " "))}
		}
	}
	failed := res.Failed()
	if len(failed) == 0 {
		return grading.Outcome{Kind: grading.OutcomePassed, Detail: "Every check that could be judged passed."}
	}
	return grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: fmt.Sprintf("%s failed: %s.", grading.CountOf(len(failed), "check", "checks"), strings.Join(failed, ", "))}
}

// Budget is the longest a client lesson's grading may take at time
// scale 1 before every deadline has passed: for each scenario, its start
// (startCost), each command's whole answer budget, then the wait for the
// exit and for the servers to be ended; a client lesson has no sweep. A whole-run limit above it stops only a stuck run.
func (l *Lesson) Budget(sweeps int, startCost time.Duration) time.Duration {
	var total time.Duration
	for _, sc := range l.Scenarios {
		for i := range sc.Commands {
			total += clientplay.AnswerWait(sc, i)
		}
		total += clientplay.ExitDeadline + clientplay.TeardownGrace + startCost
	}
	return total
}

// Designed is about how long a correct client takes on a machine at
// normal speed: startCost and a second to start, a tenth of a second a command, the
// timeouts it must wait out (a server that never answers), and a moment
// to end its stdio servers (stopMoment). Calibration compares the
// reference client's time with it.
func (l *Lesson) Designed(startCost time.Duration) time.Duration {
	var total time.Duration
	for _, sc := range l.Scenarios {
		total += time.Second + time.Duration(len(sc.Commands))*100*time.Millisecond
		if sc.HasStdio() {
			total += stopMoment
		}
		for _, s := range sc.Servers {
			if !s.Hold.IsZero() {
				total += s.Timeout
			}
		}
		total += startCost
	}
	return total
}
