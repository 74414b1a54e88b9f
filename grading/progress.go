package grading

import (
	"time"

	"github.com/mcplab/mcplab/lab/scenario"
)

// ProgressKind names what a ProgressEvent tells.
type ProgressKind int

// The events a Progress is told, in the order they come.
const (
	// ProgressScenarioStarted: a scenario (Name, Index of Total, 1-based)
	// starts; its deadlines may make it last up to Budget. The readiness
	// probe of a probe lesson comes first, with Index 0.
	ProgressScenarioStarted ProgressKind = iota + 1
	// ProgressScenarioEnded: the scenario Name is over.
	ProgressScenarioEnded
	// ProgressCalibrationStarted: grade-class grades the reference server,
	// run Index of Total. Measure says it times the run to calibrate the
	// deadlines; without it the reference is graded once, only for its
	// transcript.
	ProgressCalibrationStarted
	// ProgressCalibrationEnded: the reference server's runs are over. Scale
	// is the scale found (0 when Measure is false or calibration failed),
	// from Measured against Designed.
	ProgressCalibrationEnded
	// ProgressStudentStarted: the grading of student Name starts, one of
	// Total.
	ProgressStudentStarted
	// ProgressStudentEnded: student Name is graded, Index of Total done;
	// Verdict is its result in a few words ("19/21 wrong-answers").
	ProgressStudentEnded
)

// ProgressEvent is one step of a grading's progress (see ProgressKind for
// which fields each kind sets).
type ProgressEvent struct {
	Kind         ProgressKind
	Name         string
	Index, Total int
	Budget       time.Duration
	Measure      bool
	Scale        float64
	Measured     time.Duration
	Designed     time.Duration
	Verdict      string
}

// Progress is told how a grading goes as it goes, to show it to the one
// waiting (see TermProgress). Progress must return at once, since the
// grading waits for it, and be safe to call from several goroutines (a
// class grades several students at once).
type Progress interface {
	Progress(ev ProgressEvent)
}

// ProgressFunc makes a function a Progress.
type ProgressFunc func(ProgressEvent)

// Progress calls f(ev).
func (f ProgressFunc) Progress(ev ProgressEvent) { f(ev) }

// progress tells opts.Progress of ev, when there is one.
func (o Options) progress(ev ProgressEvent) {
	if o.Progress != nil {
		o.Progress.Progress(ev)
	}
}

// scenarioStarted and scenarioEnded tell opts.Progress of a scenario.
func (o Options) scenarioStarted(name string, index, total int, budget time.Duration) {
	o.progress(ProgressEvent{Kind: ProgressScenarioStarted, Name: name, Index: index, Total: total, Budget: budget})
}

func (o Options) scenarioEnded(name string) {
	o.progress(ProgressEvent{Kind: ProgressScenarioEnded, Name: name})
}

// The scripted client's own deadlines (client.Options' defaults), which a
// scenario's budget counts.
const (
	clientReadyWithin = 3 * time.Second
	clientExitWithin  = 5 * time.Second
	clientDrainWithin = 2 * time.Second
	clientKillWait    = 10 * time.Second
)

// ScenarioBudget is the longest a server scenario's deadlines let its run
// last under the time scale (0 means 1): the wait for readiness, its
// schedule, every await's deadline, the wait for the exit and for the last
// output. A correct server takes about the schedule alone.
func ScenarioBudget(sc *scenario.Scenario, scale float64) time.Duration {
	var waits, schedule time.Duration
	for _, st := range sc.Steps {
		waits += st.Within
		if st.Kind == scenario.StepSend || st.Kind == scenario.StepClose {
			schedule = max(schedule, st.At)
		}
	}
	return schedule + scaleBy(clientReadyWithin+waits+clientExitWithin+clientDrainWithin, scale)
}

// probeBudget is the longest the readiness probe's run may last.
func probeBudget(scale float64) time.Duration {
	return scaleBy(clientReadyWithin+clientKillWait+clientDrainWithin, scale)
}

// budget is the longest a client scenario's deadlines let it last under
// the time scale (0 means 1): what ClientBudget counts for a lesson of
// this scenario alone.
func (sc *ClientScenario) budget(scale float64) time.Duration {
	alone := &Lesson{ClientScenarios: []*ClientScenario{sc}}
	return scaleBy(alone.ClientBudget(), scale)
}

func scaleBy(d time.Duration, scale float64) time.Duration {
	if scale <= 0 {
		return d
	}
	return time.Duration(float64(d) * scale)
}
