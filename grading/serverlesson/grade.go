// Package serverlesson is the server lesson kind: it grades a student's
// stdio server against a lesson, playing the lesson's grading scenarios
// with the scripted client, then judging every check of the lesson's
// catalogue from what happened. Verdicts rest on
// causality and wide deadlines, never on lucky timing: the only order it
// asserts is one a correct server produces under any load.
package serverlesson

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lessons"
)

// ReadinessFor is how the scripted client sees that a lesson's server is
// ready, from the lesson's manifest. With a probe, Play sends it in the
// scenario's own process (lab run does); Grade does not (see
// ScenarioReadiness).
func ReadinessFor(m *lessons.Manifest) stdioprobe.Readiness {
	return stdioprobe.ReadinessOf(m.Ready.Kind, m.Ready.Pattern, m.Ready.Probe)
}

// ScenarioReadiness is how the grader waits for a lesson's server before
// each scenario. A stderr line is read as it comes and changes nothing. A
// probe would: it is a request the server answers, and a server may pick how
// it answers everything after it from its opening exchange (the TypeScript
// SDK v2 picks the protocol's era that way). So the grader sends a probe in
// a process of its own, which it then ends (ProbeReadiness), and starts each
// scenario at once in a fresh process, with nothing sent before it; a
// server still starting reads the scenario's first lines from its pipe when
// it gets to them.
func ScenarioReadiness(m *lessons.Manifest) stdioprobe.Readiness {
	if m.Ready.Kind == "probe" {
		return stdioprobe.Readiness{None: true}
	}
	return ReadinessFor(m)
}

// probeName names the readiness probe's process in transcripts.
const probeName = "readiness-probe"

// probeScenario is the whole life of the process that answers the readiness
// probe: once it has answered (or the ready deadline has passed) it is
// stopped, and nothing it did is judged.
func probeScenario() *scenario.Scenario {
	return &scenario.Scenario{Name: probeName, Parts: map[string][]byte{},
		Steps: []scenario.Step{{Kind: scenario.StepKill, Source: "kill"}}}
}

// ProbeReadiness starts the server once, sends the lesson's readiness probe
// and waits for its answer, as a 2026-07-28 client does in a process of its
// own before its real connection; then it stops that process. It returns
// the run (nil when the manifest names no probe): its Ready says whether
// the answer came.
func ProbeReadiness(ctx context.Context, m *lessons.Manifest, starter proc.Starter, co stdioprobe.Options) (*stdioprobe.Run, error) {
	if m.Ready.Kind != "probe" {
		return nil, nil
	}
	co.Ready = ReadinessFor(m)
	run, err := stdioprobe.Play(ctx, probeScenario(), starter, co)
	if err != nil {
		return nil, fmt.Errorf("probing the server for readiness: %w", err)
	}
	return run, nil
}

// load reads a server lesson's grading scenarios, whose files are in base
// inside root, and checks each against the catalogue.
func load(m *lessons.Manifest, root fs.FS, base string, checks []grading.Check) (*Lesson, error) {
	number := m.Number
	judged := serverJudges()
	if err := judged.Check(checks); err != nil {
		return nil, fmt.Errorf("lesson %d: %s: %w", number, m.Checks, err)
	}
	ids := servedBy(checks)
	files, err := m.GradingScenarios(root, base)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	derived := map[string]bool{}
	for _, c := range checks {
		known[c.ID] = true
		derived[c.ID] = !judged.Taggable(c)
	}
	tagErr := func(sc *scenario.Scenario, line int, c string) error {
		if !known[c] {
			return fmt.Errorf("lesson %d: scenario %s, line %d: check %q is not in %s", number, sc.Name, line, c, m.Checks)
		}
		if derived[c] {
			return fmt.Errorf("lesson %d: scenario %s, line %d: check %q is judged from the traffic alone; tag the answer with the check about what it says", number, sc.Name, line, c)
		}
		return nil
	}
	scenarios, err := grading.ReadScenarios(m, root, files, scenario.Parse, func(f string, sc *scenario.Scenario) error {
		for _, e := range sc.Expect {
			for _, c := range e.Checks {
				if err := tagErr(sc, e.Line, c); err != nil {
					return err
				}
			}
		}
		for _, o := range sc.Orders {
			for _, c := range o.Checks {
				if err := tagErr(sc, o.Line, c); err != nil {
					return err
				}
			}
		}
		lines, err := sentLines(sc)
		if err != nil {
			return fmt.Errorf("lesson %d: %w", number, err)
		}
		if err := isolated(sc, lines, ids); err != nil {
			return fmt.Errorf("lesson %d: %s: %w", number, f, err)
		}
		if err := validateAnswerTests(sc, tagErr); err != nil {
			return fmt.Errorf("lesson %d: %w", number, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Lesson{LessonBase: grading.NewLessonBase(m, checks), Scenarios: scenarios}, nil
}

// Grade plays the lesson's scenarios against the server and judges it,
// in the order opts.First asks for, stopping early under
// opts.StopOnceFailed (see grading.Options). The error is for the lab's own failures (a broken lesson, a cancelled ctx);
// a server that cannot be started gives a Result with Gradable false.
func (lesson *Lesson) Grade(ctx context.Context, opts grading.Options) (*grading.Result, error) {
	started := time.Now()
	if opts.Student == nil {
		return nil, fmt.Errorf("no server to grade")
	}
	scenarios := append([]*scenario.Scenario(nil), lesson.Scenarios...)
	var seed *int64
	if opts.Sweep > 0 {
		sweeps, err := sweepScenarios(lesson.Scenarios, opts.Sweep, opts.Cuts)
		if err != nil {
			return nil, err
		}
		scenarios = append(scenarios, sweeps...)
		s := opts.Cuts
		seed = &s
	}

	perScenario, perGrade := judges(lesson.Checks())
	ids := servedBy(lesson.Checks())
	res := &grading.Result{Lesson: lesson.Manifest().Number, Gradable: true, Cuts: seed}
	var runs []*evidence
	probeOpts := stdioprobe.Options{TimeScale: opts.TimeScale, MaxOutput: opts.MaxOutput}
	if opts.OnEvent != nil {
		probeOpts.OnEvent = func(ev event.Record) { opts.OnEvent(probeName, ev) }
	}
	probing := lesson.Manifest().Ready.Kind == "probe"
	if probing {
		opts.ScenarioStarted(probeName, 0, len(scenarios), probeBudget(opts.TimeScale))
	}
	probe, err := ProbeReadiness(ctx, lesson.Manifest(), opts.Student, probeOpts)
	if probing {
		opts.ScenarioEnded(probeName)
	}
	if err != nil {
		return nil, err
	}
	if probe != nil {
		for _, ev := range probe.Events {
			res.Transcript = append(res.Transcript, ev.In(probeName))
		}
		if probe.StartErr != nil {
			return res.CouldNotStart(lesson.Checks(), "the server could not be started: "+probe.StartErr.Error(), started), nil
		}
		if why := notStarted(probe, ReadinessFor(lesson.Manifest()), hiderOf(opts.Student)); why != "" {
			return couldNotStartWith(res, lesson.Checks(), why, probe, started), nil
		}
	}
	// Each scenario is judged into a tally of its own, and its transcript
	// kept apart, so that whatever order opts asks for (Options.First),
	// the evidence is judged and the transcript kept in the lesson's order.
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.Name
	}
	tallies := make([]*grading.Tally, len(scenarios))
	evs := make([]*evidence, len(scenarios))
	events := make([][]grading.Event, len(scenarios))
	orders := make([][]grading.AssertedOrder, len(scenarios))
	// played puts what the scenarios played so far saw into res, in the
	// lesson's order.
	played := func() {
		for i := range scenarios {
			res.Transcript = append(res.Transcript, events[i]...)
			res.Orders = append(res.Orders, orders[i]...)
			if evs[i] != nil {
				runs = append(runs, evs[i])
			}
		}
	}
	for n, i := range opts.PlayOrder(names) {
		sc := scenarios[i]
		co := stdioprobe.Options{Ready: ScenarioReadiness(lesson.Manifest()), TimeScale: opts.TimeScale, MaxOutput: opts.MaxOutput}
		if opts.OnEvent != nil {
			name := sc.Name
			co.OnEvent = func(ev event.Record) { opts.OnEvent(name, ev) }
		}
		opts.ScenarioStarted(sc.Name, n+1, len(scenarios), ScenarioBudget(sc, opts.TimeScale))
		run, err := stdioprobe.Play(ctx, sc, opts.Student, co)
		opts.ScenarioEnded(sc.Name)
		if err != nil {
			return nil, fmt.Errorf("playing scenario %s: %w", sc.Name, err)
		}
		for _, ev := range run.Events {
			events[i] = append(events[i], ev.In(sc.Name))
		}
		if run.StartErr != nil {
			played()
			return res.CouldNotStart(lesson.Checks(), "the server could not be started: "+run.StartErr.Error(), started), nil
		}
		// The scenario was played with ScenarioReadiness: judge its start by
		// that (a probe lesson's start is judged on the probe's run above).
		if why := notStarted(run, ScenarioReadiness(lesson.Manifest()), hiderOf(opts.Student)); why != "" {
			played()
			return couldNotStartWith(res, lesson.Checks(), why, run, started), nil
		}
		ev, err := newEvidence(run, sc, ids)
		if err != nil {
			return nil, fmt.Errorf("lesson %d: %w", lesson.Manifest().Number, err)
		}
		evs[i] = ev
		orders[i] = assertedOrders(sc)
		tallies[i] = grading.NewTally()
		for _, j := range perScenario {
			j(ev, tallies[i])
		}
		if opts.Enough(tallies) || opts.StopOnceUnread && run.Unread {
			break
		}
	}
	played()
	for i, ev := range evs {
		if ev != nil && ev.run.Unread {
			res.Unread = append(res.Unread, scenarios[i].Name)
		}
	}
	t := grading.MergeTallies(tallies)
	for _, j := range perGrade {
		j(runs, t)
	}

	res.Judge(lesson.Checks(), t)
	res.Outcome = classify(runs, res, ids)
	res.DurationMS = time.Since(started).Milliseconds()
	grading.BoundResult(res)
	return res, nil
}

// judgeStderr judges that the server wrote something to stderr in some
// scenario.
func judgeStderr(ids served, runs []*evidence, t *grading.Tally) {
	t.Test(ids.stderrLogs)
	for _, r := range runs {
		if r.run.StderrLines > 0 {
			return
		}
	}
	t.Fail(grading.Failure{What: "the server wrote nothing at all to stderr in any scenario",
		Expected: "log lines on stderr, such as \"log: ready\" at the start"}, ids.stderrLogs)
}

// classify names, in plain words, how the runs went as a whole. The first
// cause that applies wins: memory, output cap, early exit, timeout, stray
// output, wrong answers.
func classify(evs []*evidence, res *grading.Result, ids served) grading.Outcome {
	for _, ev := range evs {
		r := ev.run
		if r.Exit.Reason != "" && strings.Contains(r.Exit.Reason, "memory") {
			return grading.Outcome{Kind: grading.OutcomeMemory, Detail: fmt.Sprintf("In scenario %s the server was %s.", r.Scenario.Name, r.Exit.Reason)}
		}
	}
	for _, ev := range evs {
		r := ev.run
		if r.OutputCapped {
			return grading.Outcome{Kind: grading.OutcomeOutputCap, Detail: fmt.Sprintf("In scenario %s the server wrote more output than the grader accepts and was stopped.", r.Scenario.Name)}
		}
	}
	for _, ev := range evs {
		r := ev.run
		if r.EarlyExit {
			return grading.Outcome{Kind: grading.OutcomeExited, Detail: fmt.Sprintf("In scenario %s the server %s before the scenario was over.", r.Scenario.Name, r.Exit)}
		}
		// A crash that comes after stdin closed, with requests still
		// unanswered, is the same crash seen a little later (a slow
		// machine): the outcome must not depend on when it came.
		// So is one on the line that can end a server, which its scenario
		// sends last: whether it comes before or after the close is timing.
		if r.ExitedAfterClose && !r.Exit.OK() && (len(ev.missingRequests()) > 0 || ev.endedOnFatalLine()) {
			return grading.Outcome{Kind: grading.OutcomeExited, Detail: fmt.Sprintf("In scenario %s the server %s before it had answered every line that deserves an answer.", r.Scenario.Name, r.Exit)}
		}
	}
	for _, ev := range evs {
		r := ev.run
		if missed := explicitMisses(r); len(missed) > 0 {
			return grading.Outcome{Kind: grading.OutcomeTimeout, Detail: fmt.Sprintf("In scenario %s no answer to id %s came in time.", r.Scenario.Name, strings.Join(missed, ", id "))}
		}
		if r.Killed && r.Closed {
			return grading.Outcome{Kind: grading.OutcomeTimeout, Detail: fmt.Sprintf("In scenario %s %s.", r.Scenario.Name, r.KillReason)}
		}
	}
	failed := res.Failed()
	if len(failed) == 0 {
		return grading.Outcome{Kind: grading.OutcomePassed, Detail: "Every check passed."}
	}
	for _, id := range failed {
		if id == ids.messagesOnly {
			return grading.Outcome{Kind: grading.OutcomeProtocolViolation, Detail: "The server wrote something to stdout that is not a JSON-RPC message."}
		}
	}
	return grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: fmt.Sprintf("%s failed: %s.", grading.CountOf(len(failed), "check", "checks"), strings.Join(failed, ", "))}
}

// explicitMisses lists the ids a scenario's own await steps waited for in
// vain. The await added before a close is left out: a request it waits for
// in vain is a missing answer, judged as one, not a server too slow.
func explicitMisses(r *stdioprobe.Run) []string {
	awaited := map[string]bool{}
	for _, st := range r.Scenario.Steps {
		if st.Kind == scenario.StepAwait && !st.Implicit {
			awaited[string(st.ID)] = true
		}
	}
	var out []string
	for _, id := range r.AwaitMissed {
		if awaited[id] {
			out = append(out, id)
		}
	}
	return out
}
