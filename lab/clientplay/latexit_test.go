package clientplay

import (
	"context"
	"io"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit/lateexit"
	"github.com/mcplab/mcplab/lab/event"
)

// TestLateExitReportCounts shows that a client whose exit is reported only
// after the exit deadline, with its own status, is taken to have exited by
// itself: the kill came after its end, so it is not charged with a hang.
func TestLateExitReportCounts(t *testing.T) {
	run := playWriter(t, lateexit.Starter{Starter: newWriter(func(context.Context, io.Writer, io.Writer) int { return 0 })}, 0.1)
	if run.Killed != "" || !run.Exited || !run.Exit.OK() {
		t.Fatalf("killed %q, exited %v (%s); want an exit with status 0", run.Killed, run.Exited, run.Exit)
	}
	const want = "the client had exited by itself before it could be stopped: its exit was reported late, and counts as an exit after stdin closed"
	for _, ev := range run.Events {
		if ev.Kind == event.Note && ev.Text == want {
			return
		}
	}
	t.Errorf("no note %q in %+v", want, run.Events)
}
