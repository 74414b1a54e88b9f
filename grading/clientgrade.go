package grading

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lessons"
)

// gradeClient grades a client lesson: for each scenario the lab plays its
// servers, gives the client their configuration and its commands, and
// then judges the answers and every byte the client sent.
func gradeClient(ctx context.Context, lesson *Lesson, opts Options, started time.Time) (*Result, error) {
	starter, ok := opts.Starter.(client.ArgStarter)
	if !ok {
		return nil, fmt.Errorf("lesson %d grades a client, which is started with --config PATH, and this way of starting programs cannot add arguments", lesson.Number)
	}
	relay := opts.Relay
	if relay == nil {
		var err error
		if relay, err = RelayCommand(); err != nil {
			return nil, err
		}
	}
	dir, err := lessonFolder(lesson, opts.LessonDir)
	if err != nil {
		return nil, err
	}
	var families []clientFamily
	listed := map[string]bool{}
	for _, c := range lesson.Checks {
		listed[c.ID] = true
	}
	for _, f := range clientFamilies() {
		if listed[f.check] {
			families = append(families, f)
		}
	}
	res := &Result{Lesson: lesson.Number, Gradable: true}
	t := newTally()
	var runs []*clientRun
	for _, sc := range lesson.ClientScenarios {
		var onEvent func(Event)
		if opts.OnEvent != nil {
			onEvent = func(ev Event) {
				opts.OnEvent(ev.Scenario, client.Event{Kind: ev.Kind, Text: ev.Text, At: time.Duration(ev.AtMS) * time.Millisecond})
			}
		}
		run, err := playClient(ctx, sc, starter, dir, relay, opts.TimeScale, onEvent)
		if err != nil {
			return nil, fmt.Errorf("playing scenario %s: %w", sc.Name, err)
		}
		res.Transcript = append(res.Transcript, sortedEvents(run.events)...)
		if run.startErr != nil {
			res.Gradable = false
			res.Problem = "the client could not be started: " + run.startErr.Error()
			res.Outcome = Outcome{Kind: OutcomeCouldNotStart, Detail: res.Problem}
			res.Checks = skipAll(lesson.Checks, "Not judged: "+res.Problem+".")
			res.MaxScore = maxScore(lesson.Checks)
			res.DurationMS = time.Since(started).Milliseconds()
			return res, nil
		}
		runs = append(runs, run)
		judgeClientExpected(run, t)
		for _, f := range families {
			f.judge(run, t)
		}
	}
	for _, c := range lesson.Checks {
		res.Checks = append(res.Checks, verdict(c, t))
	}
	for _, c := range res.Checks {
		res.Score += c.Points
		res.MaxScore += c.MaxPoints
	}
	res.Outcome = classifyClient(runs, res)
	res.DurationMS = time.Since(started).Milliseconds()
	return res, nil
}

// lessonFolder is the folder a lesson's servers read their data from.
func lessonFolder(lesson *Lesson, dir fs.FS) (fs.FS, error) {
	if dir != nil {
		return dir, nil
	}
	if lesson.Manifest.Dir == "" {
		return nil, nil
	}
	sub, err := fs.Sub(lessons.FS(), lesson.Manifest.Dir)
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %w", lesson.Number, err)
	}
	return sub, nil
}

// sortedEvents orders a run's events by time, keeping the order of equal
// times.
func sortedEvents(evs []Event) []Event {
	out := append([]Event(nil), evs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].AtMS < out[j-1].AtMS; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// classifyClient names, in plain words, how a client's runs went.
func classifyClient(runs []*clientRun, res *Result) Outcome {
	for _, r := range runs {
		if r.exitAt >= 0 && !r.exited && r.early {
			return Outcome{Kind: OutcomeExited, Detail: fmt.Sprintf("In scenario %s the client %s before it had answered every command.", r.sc.Name, r.exit)}
		}
	}
	for _, r := range runs {
		if r.early {
			return Outcome{Kind: OutcomeTimeout, Detail: fmt.Sprintf("In scenario %s the client stopped answering: %s.", r.sc.Name, strings.TrimPrefix(r.whyNoAnswer(), " "))}
		}
	}
	failed := res.Failed()
	if len(failed) == 0 {
		return Outcome{Kind: OutcomeGraded, Detail: "Every check that could be judged passed."}
	}
	return Outcome{Kind: OutcomeWrongAnswers, Detail: fmt.Sprintf("%d check(s) failed: %s.", len(failed), strings.Join(failed, ", "))}
}
