package class_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/internal/kinds"
)

// TestGradeTellsProgress: a calibrated class tells its Progress of each
// calibration run with its scenarios, then of the calibration's result,
// then of each student's start and end, the ends counted 1, 2 of 2 with
// the student's verdict. A student's own scenarios are not told.
func TestGradeTellsProgress(t *testing.T) {
	t.Parallel()
	subs := classOf(t, copyOf(t, "py-good", "missing-run"))
	var mu sync.Mutex
	var evs []grading.ProgressEvent
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), Reference: reference(t), Jobs: 2,
		Progress: grading.ProgressFunc(func(ev grading.ProgressEvent) {
			mu.Lock()
			evs = append(evs, ev)
			mu.Unlock()
		})})
	if err != nil {
		t.Fatal(err)
	}
	lesson, err := serverlesson.Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for run := 1; run <= 3; run++ {
		want = append(want, fmt.Sprintf("calibration %d/3", run))
		for i, sc := range lesson.Scenarios {
			want = append(want, fmt.Sprintf("scenario %d/%d %s", i+1, len(lesson.Scenarios), sc.Name), "end "+sc.Name)
		}
	}
	want = append(want, fmt.Sprintf("calibrated × %g from %v", c.TimeScale, c.Calibration.Measured))
	var got, started, ended []string
	for _, ev := range evs {
		switch ev.Kind {
		case grading.ProgressCalibrationStarted:
			got = append(got, fmt.Sprintf("calibration %d/%d", ev.Index, ev.Total))
			if !ev.Measure {
				t.Errorf("calibration run %d is not measured", ev.Index)
			}
		case grading.ProgressScenarioStarted:
			got = append(got, fmt.Sprintf("scenario %d/%d %s", ev.Index, ev.Total, ev.Name))
		case grading.ProgressScenarioEnded:
			got = append(got, "end "+ev.Name)
		case grading.ProgressCalibrationEnded:
			got = append(got, fmt.Sprintf("calibrated × %g from %v", ev.Scale, ev.Measured))
			if ev.Designed != c.Calibration.Designed {
				t.Errorf("designed %v, want %v", ev.Designed, c.Calibration.Designed)
			}
		case grading.ProgressStudentStarted:
			started = append(started, fmt.Sprintf("%s of %d", ev.Name, ev.Total))
		case grading.ProgressStudentEnded:
			ended = append(ended, fmt.Sprintf("%d/%d %s", ev.Index, ev.Total, ev.Name))
			for _, s := range c.Students {
				if s.Name == ev.Name && ev.Verdict != class.Verdict(s) {
					t.Errorf("%s: verdict %q, want %q", s.Name, ev.Verdict, class.Verdict(s))
				}
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("calibration events\n%q\nwant\n%q", got, want)
	}
	slices.Sort(started)
	if want := []string{"missing-run of 2", "py-good of 2"}; !slices.Equal(started, want) {
		t.Errorf("students started %q, want %q", started, want)
	}
	if len(ended) != 2 || ended[0][:4] != "1/2 " || ended[1][:4] != "2/2 " {
		t.Errorf("students ended %q, want 1/2 then 2/2", ended)
	}
	verdicts := map[string]string{}
	for _, s := range c.Students {
		verdicts[s.Name] = class.Verdict(s)
	}
	if want := map[string]string{"py-good": "21/21 passed", "missing-run": "could not grade: could-not-start"}; fmt.Sprint(verdicts) != fmt.Sprint(want) {
		t.Errorf("verdicts %v, want %v", verdicts, want)
	}
}
