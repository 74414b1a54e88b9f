package httpserverlesson

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/httpscenario"
	"github.com/mcplab/mcplab/lessons"
)

// load reads the lesson's scenarios, whose files are in base inside root,
// and checks each against the catalogue.
func load(m *lessons.Manifest, root fs.FS, base string, checks []grading.Check) (*Lesson, error) {
	judges := httpJudges()
	if err := judges.Check(checks); err != nil {
		return nil, fmt.Errorf("lesson %d: %s: %w", m.Number, m.Checks, err)
	}
	byID := map[string]grading.Check{}
	for _, c := range checks {
		byID[c.ID] = c
	}
	files, err := m.GradingScenarios(root, base)
	if err != nil {
		return nil, err
	}
	scenarios, err := grading.ReadScenarios(m, root, files, httpscenario.Parse, func(f string, sc *httpscenario.Scenario) error {
		for _, e := range sc.Expect {
			c, ok := byID[e.Check]
			switch {
			case !ok:
				return fmt.Errorf("lesson %d: scenario %s, line %d: check %q is not in %s", m.Number, sc.Name, e.Line, e.Check, m.Checks)
			case c.Judge != "" && !judges.Taggable(c):
				return fmt.Errorf("lesson %d: scenario %s, line %d: check %q is worked out by its judge (%s), and cannot be tagged", m.Number, sc.Name, e.Line, e.Check, c.Judge)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Lesson{LessonBase: grading.NewLessonBase(m, checks), Scenarios: scenarios}, nil
}

// grade plays the scenarios in opts' order and judges them in the
// lesson's.
func grade(ctx context.Context, l *Lesson, opts grading.Options, started time.Time) (*grading.Result, error) {
	res := &grading.Result{Lesson: l.Manifest().Number, Gradable: true}
	streamCheck := grading.Served(l.Checks(), judgeNameEventStream)
	names := make([]string, len(l.Scenarios))
	for i, sc := range l.Scenarios {
		names[i] = sc.Name
	}
	tallies := make([]*grading.Tally, len(l.Scenarios))
	runs := make([]*run, len(l.Scenarios))
	soft := make([]map[string][]string, len(l.Scenarios))
	t := timingAt(opts.TimeScale)
	launched, err := newLaunch(opts.Student, opts.Relay)
	if err != nil {
		return nil, err
	}
	defer launched.close()
	cs := newCopies(launched, opts.MaxOutput, t.ready)
	defer cs.close()
	for n, i := range opts.PlayOrder(names) {
		sc := l.Scenarios[i]
		var on func(event.Record)
		if opts.OnEvent != nil {
			on = func(r event.Record) { opts.OnEvent(sc.Name, r) }
		}
		opts.ScenarioStarted(sc.Name, n+1, len(l.Scenarios), scenarioBudget(sc, opts.TimeScale))
		r := playScenario(ctx, sc, cs, t, on)
		opts.ScenarioEnded(sc.Name)
		runs[i] = r
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("playing scenario %s: %w", sc.Name, err)
		}
		if r.startErr != nil {
			transcript(res, runs)
			var se *startError
			if !errors.As(r.startErr, &se) {
				return nil, fmt.Errorf("playing scenario %s: %w", sc.Name, r.startErr)
			}
			return res.CouldNotStart(l.Checks(), se.why, started), nil
		}
		tallies[i] = grading.NewTally()
		soft[i] = judgeRun(r, tallies[i], streamCheck)
		if opts.Enough(tallies) {
			break
		}
	}
	transcript(res, runs)
	merged := grading.MergeTallies(tallies)
	softSkips(merged, soft)
	res.Judge(l.Checks(), merged)
	res.Outcome = outcome(res, runs)
	res.DurationMS = time.Since(started).Milliseconds()
	grading.BoundResult(res)
	return res, nil
}

// transcript puts the records of the scenarios played into res, in the
// lesson's order.
func transcript(res *grading.Result, runs []*run) {
	for _, r := range runs {
		if r == nil {
			continue
		}
		for _, rec := range r.records {
			res.Transcript = append(res.Transcript, rec.In(r.sc.Name))
		}
	}
}

// outcome classifies the grade as a whole.
func outcome(res *grading.Result, runs []*run) grading.Outcome {
	failed := res.Failed()
	if len(failed) == 0 {
		return grading.Outcome{Kind: grading.OutcomePassed, Detail: "every check passed"}
	}
	for _, r := range runs {
		if r == nil {
			continue
		}
		for _, ex := range r.sc.Exchanges {
			if p := r.played[ex.Name]; p != nil && p.gone != "" {
				return grading.Outcome{Kind: grading.OutcomeExited, Detail: fmt.Sprintf("in scenario %s, copy %s of the server ended during exchange %s (%s)", r.sc.Name, ex.Copy, ex.Name, p.gone)}
			}
		}
	}
	return grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: grading.CountOf(len(failed), "check failed", "checks failed") + ": " + strings.Join(failed, ", ")}
}
