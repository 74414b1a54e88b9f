package grading

import (
	"time"
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
func (o Options) ScenarioStarted(name string, index, total int, budget time.Duration) {
	o.progress(ProgressEvent{Kind: ProgressScenarioStarted, Name: name, Index: index, Total: total, Budget: budget})
}

func (o Options) ScenarioEnded(name string) {
	o.progress(ProgressEvent{Kind: ProgressScenarioEnded, Name: name})
}

func ScaleBy(d time.Duration, scale float64) time.Duration {
	if scale <= 0 {
		return d
	}
	return time.Duration(float64(d) * scale)
}
