package class

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/sandbox"
)

// calibrationRuns is how many times calibration grades the reference
// program (the lesson's own server or client); the fastest run counts.
const calibrationRuns = 3

// CalibrationFactor is k in scale = max(1, k × measured / designed): the
// margin a student's program gets over the reference on top of the
// lesson's own deadlines, which are already many times what a correct
// program needs.
const CalibrationFactor = 1.25

// MaxCalibratedScale caps the scale calibration derives. A reference
// program that took more than three times its designed time was graded on a
// machine busy with something else (CI measured × 12 when its own tests
// started at once), and a scale that large makes every hung program cost
// minutes: each of its deadlines, and then the confirmation's four times
// as long, wait that much more. Students lose nothing by the cap: a check
// that fails only on a deadline is graded again at four times the scale
// before it is charged (grading.Confirm). --time-scale sets any scale.
const MaxCalibratedScale = 4

// Calibration is how the deadlines' scale was derived, as Kattis does it:
// the reference program was graded through the same sandbox on the same
// machine, and its wall time compared with the lesson's designed time.
type Calibration struct {
	// Measured is the wall time of grading the reference program (the
	// fastest of three runs).
	Measured time.Duration
	// Designed is the sum of the scenarios' schedules, plus the sandbox's
	// start cost for each.
	Designed time.Duration
	// Scale is max(1, CalibrationFactor × Measured / Designed), rounded up
	// to a multiple of 0.05, and at most MaxCalibratedScale.
	Scale float64
	// Capped is set when the measure asked for more than
	// MaxCalibratedScale.
	Capped bool `json:",omitempty"`
}

// calibrate grades the reference program through the sandbox and derives
// the time scale from its wall time (when measure is set; else it grades it
// once). It also returns the reference's transcript, which a student's is
// compared with (see sameTranscript). When measure is not set, a reference
// server that cannot be graded gives no transcript, and no error.
//
// The copy of the reference program lives only while calibration runs,
// before any student's program does, and is removed before grading
// starts: no student can run it.
func calibrate(ctx context.Context, lesson grading.Lesson, opts Options, root string, measure bool) (*Calibration, []grading.Event, error) {
	if len(opts.Reference) == 0 {
		return nil, nil, fmt.Errorf("no reference program to calibrate the deadlines against: give a time scale instead")
	}
	cal, transcript, err := calibrateIn(ctx, lesson, opts, root, measure)
	ended := grading.ProgressEvent{Kind: grading.ProgressCalibrationEnded, Measure: measure}
	if err == nil && cal != nil && measure {
		ended.Scale, ended.Measured, ended.Designed = cal.Scale, cal.Measured, cal.Designed
	}
	opts.progress(ended)
	if err != nil && !measure {
		return nil, nil, nil
	}
	return cal, transcript, err
}

func calibrateIn(ctx context.Context, lesson grading.Lesson, opts Options, root string, measure bool) (*Calibration, []grading.Event, error) {
	// A copy of the reference program in the workspaces' folder, where the
	// sandbox users (and a container) can reach it.
	dir := filepath.Join(root, "reference")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("calibrating: %w", err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, filepath.Base(opts.Reference[0]))
	if err := linkOrCopy(opts.Reference[0], bin); err != nil {
		return nil, nil, fmt.Errorf("calibrating: copying the reference program: %w", err)
	}
	work := filepath.Join(root, "reference-work")
	if err := opts.Sandbox.Workspace(work, 0, ""); err != nil {
		return nil, nil, fmt.Errorf("calibrating: %w", err)
	}
	defer sandbox.RemoveWorkspace(work)
	args, err := referenceArgs(lesson, opts, dir, bin)
	if err != nil {
		return nil, nil, err
	}
	spec := sandbox.Spec{Dir: dir, Path: bin, Args: args, Work: work, Root: dir, Limits: opts.RunLimits}

	runs := calibrationRuns
	if !measure {
		runs = 1
	}
	// The best of three runs: a transient load (a cold disk cache, the
	// grader's own start) must not set the deadlines of the whole class.
	var measured time.Duration
	var transcript []grading.Event
	for run := range runs {
		opts.progress(grading.ProgressEvent{Kind: grading.ProgressCalibrationStarted, Measure: measure, Index: run + 1, Total: runs})
		started := time.Now()
		// Generous deadlines: they do not change how long a correct program
		// takes, only whether a slow machine fails it.
		res, err := lesson.Grade(ctx, grading.Options{Lesson: lesson.Manifest().Number, LessonDir: opts.LessonDir,
			Student: opts.Sandbox.Starter(spec), TimeScale: 4, MaxOutput: 1 << 20, Relay: opts.relay(), Progress: opts.Progress})
		took := time.Since(started)
		if err != nil {
			return nil, nil, fmt.Errorf("calibrating against the reference program: %w", err)
		}
		if !res.Gradable || len(res.Failed()) > 0 {
			why := res.Problem
			if why == "" {
				why = res.Outcome.Detail
			}
			for _, c := range res.Checks {
				if c.Status == grading.StatusFail {
					why += fmt.Sprintf(" [%s: %s]", c.ID, grading.Clip(c.Message, 600))
				}
			}
			return nil, nil, fmt.Errorf("calibrating: the reference program (%s) did not pass its own grading in the %s sandbox: %s; "+
				"check the sandbox, or give a time scale to skip calibration", strings.Join(opts.Reference, " "), opts.Sandbox.Name(), why)
		}
		if measured == 0 || took < measured {
			measured = took
		}
		transcript = res.Transcript
	}
	cal := &Calibration{Measured: measured, Designed: lesson.Designed(opts.Sandbox.StartCost())}
	// Rounded up to a twentieth, so deadlines read well in reports.
	cal.Scale = max(1, math.Ceil(20*CalibrationFactor*float64(cal.Measured)/float64(cal.Designed))/20)
	if cal.Scale > MaxCalibratedScale {
		cal.Scale, cal.Capped = MaxCalibratedScale, true
	}
	return cal, transcript, nil
}

// referenceArgs are the arguments of the reference program that
// calibration runs in the sandbox from dir: opts.Reference's own for a
// built-in lesson. A lesson read from a folder may serve the folder's own
// data, which the sandbox's user may not read and a container does not
// see, so its grading files (bounded, plain files only, see
// lessons.Manifest.GradingFiles) are copied into dir/lesson, and the
// reference is the lesson kind's, given that copy.
func referenceArgs(lesson grading.Lesson, opts Options, dir, bin string) ([]string, error) {
	m := lesson.Manifest()
	if m.BuiltIn() {
		return opts.Reference[1:], nil
	}
	files, err := m.GradingFiles()
	if err != nil {
		return nil, fmt.Errorf("calibrating: %w", err)
	}
	copyDir := filepath.Join(dir, "lesson")
	if err := os.Mkdir(copyDir, 0o755); err != nil {
		return nil, fmt.Errorf("calibrating: %w", err)
	}
	root, err := os.OpenRoot(copyDir)
	if err != nil {
		return nil, fmt.Errorf("calibrating: %w", err)
	}
	defer root.Close()
	for _, f := range files {
		if err := root.MkdirAll(filepath.Dir(filepath.FromSlash(f.Name)), 0o755); err != nil {
			return nil, fmt.Errorf("calibrating: copying the lesson for the reference: %w", err)
		}
		if err := root.WriteFile(filepath.FromSlash(f.Name), f.Data, 0o644); err != nil {
			return nil, fmt.Errorf("calibrating: copying the lesson for the reference: %w", err)
		}
	}
	return lesson.Reference(bin, copyDir)[1:], nil
}

// linkOrCopy makes dst the same file as src (a hard link) when src is
// readable and executable by everyone, else a copy of it that is.
func linkOrCopy(src, dst string) error {
	if info, err := os.Stat(src); err == nil && info.Mode().Perm()&0o005 == 0o005 {
		if os.Link(src, dst) == nil {
			return nil
		}
	}
	return sandbox.CopyFile(src, dst, 0o755)
}
