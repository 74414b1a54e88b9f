package interop_test

import (
	"os"
	"reflect"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// loadTrial is the size of TestSDKServersPlainGradeUnderLoad: in every run
// a small one (a busy loop beside CI's own load, one grade each); with
// MCPLAB_LOAD_TRIAL=1 the trial README.md reports (8 busy loops on the
// machine's 2 cores, four grades each).
func loadTrial() (busy, grades int) {
	if os.Getenv("MCPLAB_LOAD_TRIAL") == "1" {
		return 8, 4
	}
	return 1, 1
}

// TestSDKServersPlainGradeUnderLoad grades the SDK helpdesks, which nobody
// here wrote, as a plain lab grade does (deadlines × 1, no calibration)
// with the cores oversubscribed: every grade must fail exactly the checks
// README.md's table names for that SDK. A deadline the loaded machine
// made a server miss is confirmed at a larger scale before it is charged
// (grading.Confirm), so the load never shows in a verdict.
func TestSDKServersPlainGradeUnderLoad(t *testing.T) {
	t.Parallel() // its busy loops load the tests beside it too, as a CI runner's neighbours would
	table, err := readSDKTable(sdkTableHeading)
	if err != nil {
		t.Fatal(err)
	}
	busy, grades := loadTrial()
	if busy == 1 {
		testkit.BusyCore(t) // the small trial: a loaded machine is load enough
	} else {
		for range busy {
			testkit.SpinCore(t) // the trial README.md reports sets its own load
		}
	}
	dir := t.TempDir()
	var build sync.Mutex
	goPeers := func(t *testing.T) string {
		build.Lock()
		defer build.Unlock()
		return buildPeerHelpdesk(t, dir)
	}
	for _, p := range sdkPeers(goPeers) {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			want := sdkWant(t, table, sdkTableHeading, p.name)
			cmd := p.command(t)
			confirmed := 0
			for i := range grades {
				res, err := kinds.Grade(t.Context(), grading.Options{Lesson: 2, Student: cmd})
				if err != nil {
					t.Fatalf("grade %d: %v", i+1, err)
				}
				if res.Confirmed != nil {
					confirmed++
				}
				if got := sorted(res.Failed()); !reflect.DeepEqual(got, want) {
					t.Errorf("grade %d under load: failed %v, README.md says %v", i+1, got, want)
					for _, c := range res.Checks {
						if c.Status != grading.StatusPass {
							t.Logf("%s %s: %s", c.Status, c.ID, c.Message)
						}
					}
				}
			}
			t.Logf("%s: %d grades with %d busy loops, the expected failures every time; %d needed a deadline confirmed", p.name, grades, busy, confirmed)
		})
	}
}
