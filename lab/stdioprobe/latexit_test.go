package stdioprobe_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcplab/mcplab/internal/testkit/lateexit"
	"github.com/mcplab/mcplab/lab/stdioprobe"
)

// TestLateExitReport shows that a server whose exit is reported only after
// the exit deadline, with its own status, is taken to have exited after its
// stdin closed: the kill did not end it. One that the kill ended is not.
func TestLateExitReport(t *testing.T) {
	for _, hung := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			run, err := stdioprobe.Play(context.Background(), lessonScenario(t), lateexit.Starter{Starter: reference(), Hung: hung}, stdioprobe.Options{ExitWithin: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			took := normalise(run.Events)
			if hung {
				if run.ExitedAfterClose || !run.Killed || !strings.Contains(run.KillReason, "still running 2s after its stdin closed") {
					t.Errorf("killed server: exited after close %v, killed %v (%q), exit %v", run.ExitedAfterClose, run.Killed, run.KillReason, run.Exit)
				}
				if strings.Contains(took, "reported late") {
					t.Errorf("a killed server is said to have exited by itself:\n%s", took)
				}
				return
			}
			if !run.ExitedAfterClose || run.Killed || run.KillReason != "" || !run.Exit.OK() {
				t.Errorf("late report: exited after close %v, killed %v (%q), exit %v", run.ExitedAfterClose, run.Killed, run.KillReason, run.Exit)
			}
			want := "the server had exited by itself before it could be stopped: its exit was reported late, and counts as an exit after stdin closed"
			if !strings.Contains(took, want) {
				t.Errorf("no note %q:\n%s", want, took)
			}
		})
	}
}
