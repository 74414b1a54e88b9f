package serverlesson_test

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// recorded keeps the progress events a grading tells.
type recorded struct {
	mu  sync.Mutex
	evs []grading.ProgressEvent
}

func (r *recorded) Progress(ev grading.ProgressEvent) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

// TestGradeTellsEachScenario: Grade tells a Progress of every scenario it
// plays, in order, each start with its place and a budget no shorter than
// what the scenario's deadlines allow, each end after it; a probe lesson's
// readiness probe comes first, as scenario 0. The result is the same as
// without a Progress.
func TestGradeTellsEachScenario(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lesson int
		args   []string
	}{
		{1, []string{"serve", "reader"}},
		{2, []string{"serve", "helpdesk"}},
	} {
		t.Run(fmt.Sprint("lesson ", tc.lesson), func(t *testing.T) {
			t.Parallel()
			lesson, err := serverlesson.Load(tc.lesson, nil)
			if err != nil {
				t.Fatal(err)
			}
			starter := proc.Command{Path: bin(t, "lab"), Args: tc.args}
			rec := &recorded{}
			res := grade(t, starter, grading.Options{Lesson: tc.lesson, TimeScale: 2, Progress: rec})
			plain := grade(t, starter, grading.Options{Lesson: tc.lesson, TimeScale: 2})
			if res.Score != plain.Score || !reflect.DeepEqual(res.Failed(), plain.Failed()) || res.Outcome != plain.Outcome {
				t.Errorf("with progress: %d, %v, %v; without: %d, %v, %v", res.Score, res.Failed(), res.Outcome, plain.Score, plain.Failed(), plain.Outcome)
			}
			var want []string
			if lesson.Manifest().Ready.Kind == "probe" {
				want = append(want, fmt.Sprintf("start readiness-probe 0/%d", len(lesson.Scenarios)), "end readiness-probe")
			}
			for i, sc := range lesson.Scenarios {
				want = append(want, fmt.Sprintf("start %s %d/%d", sc.Name, i+1, len(lesson.Scenarios)), "end "+sc.Name)
			}
			var got []string
			for _, ev := range rec.evs {
				switch ev.Kind {
				case grading.ProgressScenarioStarted:
					got = append(got, fmt.Sprintf("start %s %d/%d", ev.Name, ev.Index, ev.Total))
					if ev.Budget < 2*8*time.Second { // ready and exit deadlines alone, times the scale
						t.Errorf("scenario %s: budget %v, want at least the ready and exit deadlines", ev.Name, ev.Budget)
					}
				case grading.ProgressScenarioEnded:
					got = append(got, "end "+ev.Name)
				default:
					got = append(got, fmt.Sprintf("unexpected kind %d", ev.Kind))
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("events\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// TestScenarioBudget: a scenario's budget is its schedule plus every
// deadline, the deadlines scaled.
func TestScenarioBudget(t *testing.T) {
	lesson, err := serverlesson.Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range lesson.Scenarios {
		one, two := serverlesson.ScenarioBudget(sc, 1), serverlesson.ScenarioBudget(sc, 2)
		if serverlesson.ScenarioBudget(sc, 0) != one {
			t.Errorf("%s: scale 0 is not scale 1", sc.Name)
		}
		var schedule, waits time.Duration
		for _, st := range sc.Steps {
			schedule = max(schedule, st.At)
			waits += st.Within
		}
		if want := schedule + 10*time.Second + waits; one != want {
			t.Errorf("%s: budget %v, want %v (schedule %v, waits %v, ready 3s, exit 5s, drain 2s)", sc.Name, one, want, schedule, waits)
		}
		if two-one != one-schedule {
			t.Errorf("%s: budget ×2 %v, ×1 %v: only the deadlines scale, not the schedule %v", sc.Name, two, one, schedule)
		}
	}
}
