package clientplay

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
)

// lateWriter is a writer whose end reaches the player late, as a
// container's does when its engine is slow: the client exits as soon as its
// stdin ends, but Wait tells of it only once the player has killed it, with
// the client's own status.
type lateWriter struct{ writer }

func (w lateWriter) WithArgs(...string) proc.Starter { return w }

func (w lateWriter) Start(ctx context.Context) (proc.Process, error) {
	p, err := w.writer.Start(ctx)
	if err != nil {
		return nil, err
	}
	return &lateProcess{Process: p, killed: make(chan struct{})}, nil
}

type lateProcess struct {
	proc.Process
	once   sync.Once
	killed chan struct{}
}

func (p *lateProcess) Kill() { p.once.Do(func() { close(p.killed) }) }

func (p *lateProcess) Wait() proc.Exit {
	exit := p.Process.Wait()
	select {
	case <-p.killed:
	case <-time.After(time.Minute):
	}
	return exit
}

// TestLateExitReportCounts shows that a client whose exit is reported only
// after the exit deadline, with its own status, is taken to have exited by
// itself: the kill came after its end, so it is not charged with a hang.
func TestLateExitReportCounts(t *testing.T) {
	run := playWriter(t, lateWriter{newWriter(func(context.Context, io.Writer, io.Writer) int { return 0 })}, 0.1)
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
