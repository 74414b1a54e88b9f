// Package grading grades a stdio server against a lesson: it plays the
// lesson's grading scenarios with the scripted client, then judges every
// check of the lesson's catalogue from what happened. Verdicts rest on
// causality and wide deadlines, never on lucky timing: the only order it
// asserts is one a correct server produces under any load.
package grading

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lessons"
)

// Options say what to grade and how.
type Options struct {
	// Lesson is the lesson's number; 0 means 1.
	Lesson int
	// LessonDir, when set, is a lesson folder on disk to read the grading
	// scenarios and checks from instead of the ones built into the lab, so a
	// teacher can add a case without rebuilding anything.
	LessonDir fs.FS
	// Starter starts the server under test, once per scenario.
	Starter proc.Starter
	// TimeScale multiplies every deadline; 0 means 1.
	TimeScale float64
	// Sweep replays the lesson's messages this many more times, cut at
	// seeded random places; Seed seeds the cuts.
	Sweep int
	Seed  int64
	// MaxOutput caps each output stream of each run, in bytes; 0 means 8 MiB.
	MaxOutput int64
	// OnEvent, when set, sees every event as it happens.
	OnEvent func(scenario string, ev client.Event)
	// Progress, when set, is told as each scenario starts and ends (see
	// ProgressEvent); nil tells nothing.
	Progress Progress
	// Relay is the command that joins a client under test to a stdio
	// server the lab plays (a client lesson's); nil means this lab
	// binary's "relay" (see RelayCommand).
	Relay []string
}

// Lesson is what grading needs of a lesson: its manifest, its scenarios
// and its checks.
type Lesson struct {
	Number    int
	Manifest  *lessons.Manifest
	Scenarios []*scenario.Scenario
	// ClientScenarios are a client lesson's scenarios (Scenarios is then
	// empty).
	ClientScenarios []*ClientScenario
	Checks          []Check
}

// ReadinessFor is how the scripted client sees that a lesson's server is
// ready, from the lesson's manifest. With a probe, Play sends it in the
// scenario's own process (lab run does); Grade does not (see
// ScenarioReadiness).
func ReadinessFor(m *lessons.Manifest) client.Readiness {
	switch m.Ready.Kind {
	case "none":
		return client.Readiness{None: true}
	case "probe":
		return client.Readiness{Probe: []byte(m.Ready.Probe + "\n")}
	}
	return client.Readiness{Stderr: m.Ready.Pattern}
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
func ScenarioReadiness(m *lessons.Manifest) client.Readiness {
	if m.Ready.Kind == "probe" {
		return client.Readiness{None: true}
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
func ProbeReadiness(ctx context.Context, m *lessons.Manifest, starter proc.Starter, co client.Options) (*client.Run, error) {
	if m.Ready.Kind != "probe" {
		return nil, nil
	}
	co.Ready = ReadinessFor(m)
	run, err := client.Play(ctx, probeScenario(), starter, co)
	if err != nil {
		return nil, fmt.Errorf("probing the server for readiness: %w", err)
	}
	return run, nil
}

// LoadLesson reads a lesson's grading data through its manifest, from dir
// when it is set (a lesson folder on disk; without a manifest of its own it
// uses the built-in lesson's), else from the lessons built into the lab.
func LoadLesson(number int, dir fs.FS) (*Lesson, error) {
	if number == 0 {
		number = 1
	}
	root, base := dir, "."
	var m *lessons.Manifest
	if dir != nil {
		if _, err := fs.Stat(dir, lessons.ManifestFile); err == nil {
			if m, err = lessons.ReadManifest(dir, "."); err != nil {
				return nil, err
			}
			if m.Number != number {
				return nil, fmt.Errorf("the lesson folder is lesson %d, not lesson %d (its %s says so)", m.Number, number, lessons.ManifestFile)
			}
		}
	}
	if m == nil {
		builtin, err := lessons.Get(number)
		if err != nil {
			return nil, err
		}
		m = builtin
		if dir == nil {
			root, base = lessons.FS(), builtin.Dir
		}
	}
	checksData, err := fs.ReadFile(root, path.Join(base, m.Checks))
	if err != nil {
		return nil, fmt.Errorf("lesson %d: reading the checks: %w", number, err)
	}
	checks, err := ParseChecks(checksData)
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %s: %w", number, m.Checks, err)
	}
	files, err := m.GradingScenarios(root, base)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	derived := map[string]bool{}
	for _, c := range checks {
		known[c.ID] = true
		derived[c.ID] = !taggable(c)
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
	l := &Lesson{Number: number, Manifest: m, Checks: checks}
	if m.Subject == "client" {
		for _, f := range files {
			data, err := fs.ReadFile(root, f)
			if err != nil {
				return nil, fmt.Errorf("lesson %d: %w", number, err)
			}
			sc, err := ParseClientScenario(strings.TrimSuffix(path.Base(f), ".txtar"), data)
			if err != nil {
				return nil, fmt.Errorf("lesson %d: %w", number, err)
			}
			for _, e := range sc.Expect {
				if !known[e.Check] {
					return nil, fmt.Errorf("lesson %d: scenario %s, expect line %d: check %q is not in %s", number, sc.Name, e.Line, e.Check, m.Checks)
				}
			}
			l.ClientScenarios = append(l.ClientScenarios, sc)
		}
		if len(l.ClientScenarios) == 0 {
			return nil, fmt.Errorf("lesson %d has no grading scenarios", number)
		}
		return l, nil
	}
	for _, f := range files {
		data, err := fs.ReadFile(root, f)
		if err != nil {
			return nil, fmt.Errorf("lesson %d: %w", number, err)
		}
		sc, err := scenario.Parse(strings.TrimSuffix(path.Base(f), ".txtar"), data)
		if err != nil {
			return nil, fmt.Errorf("lesson %d: %w", number, err)
		}
		for _, e := range sc.Expect {
			for _, c := range e.Checks {
				if err := tagErr(sc, e.Line, c); err != nil {
					return nil, err
				}
			}
		}
		for _, o := range sc.Orders {
			for _, c := range o.Checks {
				if err := tagErr(sc, o.Line, c); err != nil {
					return nil, err
				}
			}
		}
		lines, err := readLines(sc)
		if err != nil {
			return nil, fmt.Errorf("lesson %d: %w", number, err)
		}
		if err := isolated(sc, lines); err != nil {
			return nil, fmt.Errorf("lesson %d: %s: %w", number, f, err)
		}
		if err := validateAnswerTests(sc, tagErr); err != nil {
			return nil, fmt.Errorf("lesson %d: %w", number, err)
		}
		l.Scenarios = append(l.Scenarios, sc)
	}
	if len(l.Scenarios) == 0 {
		return nil, fmt.Errorf("lesson %d has no grading scenarios", number)
	}
	return l, nil
}

// Grade plays the lesson's scenarios against the server and judges it. The
// error is for the lab's own failures (a broken lesson, a cancelled ctx);
// a server that cannot be started gives a Result with Gradable false.
func Grade(ctx context.Context, opts Options) (*Result, error) {
	started := time.Now()
	lesson, err := LoadLesson(opts.Lesson, opts.LessonDir)
	if err != nil {
		return nil, err
	}
	if opts.Starter == nil {
		return nil, fmt.Errorf("no server to grade")
	}
	if lesson.Manifest.Subject == "client" {
		return gradeClient(ctx, lesson, opts, started)
	}
	scenarios := append([]*scenario.Scenario(nil), lesson.Scenarios...)
	var seed *int64
	if opts.Sweep > 0 {
		sweeps, err := sweepScenarios(lesson.Scenarios, opts.Sweep, opts.Seed)
		if err != nil {
			return nil, err
		}
		scenarios = append(scenarios, sweeps...)
		s := opts.Seed
		seed = &s
	}

	perScenario, perGrade := judges(lesson.Checks)
	framed := false
	for _, c := range lesson.Checks {
		framed = framed || c.ID == checkSplitMessage || c.ID == checkManyPerChunk
	}
	res := &Result{Lesson: lesson.Number, Gradable: true, Seed: seed}
	t := newTally()
	var runs []*evidence
	probeOpts := client.Options{TimeScale: opts.TimeScale, MaxOutput: opts.MaxOutput}
	if opts.OnEvent != nil {
		probeOpts.OnEvent = func(ev client.Event) { opts.OnEvent(probeName, ev) }
	}
	probing := lesson.Manifest.Ready.Kind == "probe"
	if probing {
		opts.scenarioStarted(probeName, 0, len(scenarios), probeBudget(opts.TimeScale))
	}
	probe, err := ProbeReadiness(ctx, lesson.Manifest, opts.Starter, probeOpts)
	if probing {
		opts.scenarioEnded(probeName)
	}
	if err != nil {
		return nil, err
	}
	if probe != nil {
		for _, ev := range probe.Events {
			res.Transcript = append(res.Transcript, Event{Scenario: probeName, AtMS: ev.At.Milliseconds(), Kind: ev.Kind, Text: ev.Text})
		}
		if probe.StartErr != nil {
			return res.couldNotStart(lesson.Checks, "the server could not be started: "+probe.StartErr.Error(), started), nil
		}
		if why := notStarted(probe, ReadinessFor(lesson.Manifest)); why != "" {
			return res.couldNotStartWith(lesson.Checks, why, probe, started), nil
		}
	}
	for i, sc := range scenarios {
		co := client.Options{Ready: ScenarioReadiness(lesson.Manifest), TimeScale: opts.TimeScale, MaxOutput: opts.MaxOutput}
		if opts.OnEvent != nil {
			name := sc.Name
			co.OnEvent = func(ev client.Event) { opts.OnEvent(name, ev) }
		}
		opts.scenarioStarted(sc.Name, i+1, len(scenarios), ScenarioBudget(sc, opts.TimeScale))
		run, err := client.Play(ctx, sc, opts.Starter, co)
		opts.scenarioEnded(sc.Name)
		if err != nil {
			return nil, fmt.Errorf("playing scenario %s: %w", sc.Name, err)
		}
		for _, ev := range run.Events {
			res.Transcript = append(res.Transcript, Event{Scenario: sc.Name, AtMS: ev.At.Milliseconds(), Kind: ev.Kind, Text: ev.Text})
		}
		if run.StartErr != nil {
			return res.couldNotStart(lesson.Checks, "the server could not be started: "+run.StartErr.Error(), started), nil
		}
		// The scenario was played with ScenarioReadiness: judge its start by
		// that (a probe lesson's start is judged on the probe's run above).
		if why := notStarted(run, ScenarioReadiness(lesson.Manifest)); why != "" {
			return res.couldNotStartWith(lesson.Checks, why, run, started), nil
		}
		ev, err := newEvidence(run, sc, framed)
		if err != nil {
			return nil, fmt.Errorf("lesson %d: %w", lesson.Number, err)
		}
		runs = append(runs, ev)
		for _, j := range perScenario {
			j(ev, t)
		}
	}
	for _, j := range perGrade {
		j(runs, t)
	}

	res.judge(lesson.Checks, t)
	res.Outcome = classify(runs, res)
	res.DurationMS = time.Since(started).Milliseconds()
	boundResult(res)
	return res, nil
}

// judge gives every check its verdict from the tally, and the score.
func (res *Result) judge(checks []Check, t *tally) {
	for _, c := range checks {
		res.Checks = append(res.Checks, verdict(c, t))
	}
	for _, c := range res.Checks {
		res.Score += c.Points
		res.MaxScore += c.MaxPoints
	}
}

// couldNotStart makes res the result of a program that could not be
// started: not gradable, every check skipped with the problem.
func (res *Result) couldNotStart(checks []Check, problem string, started time.Time) *Result {
	res.Gradable = false
	res.Problem = problem
	res.Outcome = Outcome{Kind: OutcomeCouldNotStart, Detail: problem}
	res.Checks = skipAll(checks, "Not judged: "+problem+".")
	res.MaxScore = maxScore(checks)
	res.DurationMS = time.Since(started).Milliseconds()
	return res
}

func judgeStderr(runs []*evidence, t *tally) {
	t.test(checkStderrLogs)
	for _, r := range runs {
		if r.run.StderrLines > 0 {
			return
		}
	}
	t.fail(failure{what: "the server wrote nothing at all to stderr in any scenario",
		expected: "log lines on stderr, such as \"log: ready\" at the start"}, checkStderrLogs)
}

// verdict turns the evidence about one check into its result.
func verdict(c Check, t *tally) CheckResult {
	r := CheckResult{ID: c.ID, Title: c.Title, MaxPoints: c.Points, Rule: c.Rule, Fix: c.Fix}
	fails := t.failures[c.ID]
	switch {
	case len(fails) > 0:
		r.Status = StatusFail
		f := fails[0]
		var b strings.Builder
		if f.scenario != "" {
			fmt.Fprintf(&b, "In scenario %s, %s.", f.scenario, strings.TrimSuffix(f.what, "."))
		} else {
			fmt.Fprintf(&b, "%s%s.", strings.ToUpper(f.what[:1]), strings.TrimSuffix(f.what[1:], "."))
		}
		if more := morePlaces(f, fails[1:]); more != "" {
			b.WriteString(" " + more)
		}
		if c.Rule != "" {
			fmt.Fprintf(&b, " Rule: %s", c.Rule)
		}
		if c.Fix != "" {
			fmt.Fprintf(&b, " Fix: %s", c.Fix)
		}
		r.Message = b.String()
		r.Expected, r.Actual = f.expected, f.actual
	case len(t.skips[c.ID]) > 0:
		r.Status = StatusSkip
		r.Message = "Not judged: " + strings.TrimSuffix(t.skips[c.ID][0], ".") + "."
	case t.tested[c.ID]:
		r.Status, r.Points = StatusPass, c.Points
	default:
		r.Status = StatusSkip
		r.Message = "Not judged: no scenario gave evidence for this check (the server gave no answers to judge it by, or no scenario of the lesson tests it)."
	}
	return r
}

func skipAll(checks []Check, why string) []CheckResult {
	var out []CheckResult
	for _, c := range checks {
		out = append(out, CheckResult{ID: c.ID, Title: c.Title, Status: StatusSkip, MaxPoints: c.Points, Message: why, Rule: c.Rule, Fix: c.Fix})
	}
	return out
}

func maxScore(checks []Check) int {
	n := 0
	for _, c := range checks {
		n += c.Points
	}
	return n
}

// classify names, in plain words, how the runs went as a whole. The first
// cause that applies wins: memory, output cap, early exit, timeout, stray
// output, wrong answers.
func classify(evs []*evidence, res *Result) Outcome {
	for _, ev := range evs {
		r := ev.run
		if r.Exit.Reason != "" && strings.Contains(r.Exit.Reason, "memory") {
			return Outcome{Kind: OutcomeMemory, Detail: fmt.Sprintf("In scenario %s the server was %s.", r.Scenario.Name, r.Exit.Reason)}
		}
	}
	for _, ev := range evs {
		r := ev.run
		if r.OutputCapped {
			return Outcome{Kind: OutcomeOutputCap, Detail: fmt.Sprintf("In scenario %s the server wrote more output than the grader accepts and was stopped.", r.Scenario.Name)}
		}
	}
	for _, ev := range evs {
		r := ev.run
		if r.EarlyExit {
			return Outcome{Kind: OutcomeExited, Detail: fmt.Sprintf("In scenario %s the server %s before the scenario was over.", r.Scenario.Name, r.Exit)}
		}
		// A crash that comes after stdin closed, with requests still
		// unanswered, is the same crash seen a little later (a slow
		// machine): the outcome must not depend on when it came.
		// So is one on the line that can end a server, which its scenario
		// sends last: whether it comes before or after the close is timing.
		if r.ExitedAfterClose && !r.Exit.OK() && (len(ev.missingRequests()) > 0 || ev.endedOnFatalLine()) {
			return Outcome{Kind: OutcomeExited, Detail: fmt.Sprintf("In scenario %s the server %s before it had answered every line that deserves an answer.", r.Scenario.Name, r.Exit)}
		}
	}
	for _, ev := range evs {
		r := ev.run
		if missed := explicitMisses(r); len(missed) > 0 {
			return Outcome{Kind: OutcomeTimeout, Detail: fmt.Sprintf("In scenario %s no answer to id %s came in time.", r.Scenario.Name, strings.Join(missed, ", id "))}
		}
		if r.Killed && r.Closed {
			return Outcome{Kind: OutcomeTimeout, Detail: fmt.Sprintf("In scenario %s %s.", r.Scenario.Name, r.KillReason)}
		}
	}
	failed := res.Failed()
	if len(failed) == 0 {
		return Outcome{Kind: OutcomeGraded, Detail: "Every check passed."}
	}
	for _, id := range failed {
		if id == checkMessagesOnly {
			return Outcome{Kind: OutcomeProtocolViolation, Detail: "The server wrote something to stdout that is not a JSON-RPC message."}
		}
	}
	return Outcome{Kind: OutcomeWrongAnswers, Detail: fmt.Sprintf("%s failed: %s.", CountOf(len(failed), "check", "checks"), strings.Join(failed, ", "))}
}

// explicitMisses lists the ids a scenario's own await steps waited for in
// vain. The await added before a close is left out: a request it waits for
// in vain is a missing answer, judged as one, not a server too slow.
func explicitMisses(r *client.Run) []string {
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
