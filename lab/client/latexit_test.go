package client_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lab/proc"
)

// lateReport starts a server whose end reaches the client late, as a
// container's does when its engine is slow: the server itself exits as
// soon as its stdin closes, but Wait tells of it only once the client has
// given up and killed it (or after an hour), with the server's own status,
// or with "killed" when the kill came first (hung is set).
type lateReport struct {
	proc.Starter
	hung bool
}

func (s lateReport) Start(ctx context.Context) (proc.Process, error) {
	p, err := s.Starter.Start(ctx)
	if err != nil {
		return nil, err
	}
	return &lateProcess{Process: p, killed: make(chan struct{}), hung: s.hung}, nil
}

type lateProcess struct {
	proc.Process
	hung   bool
	once   sync.Once
	killed chan struct{}
}

func (p *lateProcess) Kill() { p.once.Do(func() { close(p.killed) }) }

func (p *lateProcess) Wait() proc.Exit {
	exit := p.Process.Wait()
	select {
	case <-p.killed:
	case <-time.After(time.Hour):
	}
	if p.hung {
		return proc.Exit{Code: -1, Signal: "killed"}
	}
	return exit
}

// TestLateExitReport shows that a server whose exit is reported only after
// the exit deadline, with its own status, is taken to have exited after its
// stdin closed: the kill did not end it. One that the kill ended is not.
func TestLateExitReport(t *testing.T) {
	for _, hung := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			run, err := client.Play(context.Background(), lessonScenario(t), lateReport{Starter: reference(), hung: hung}, client.Options{ExitWithin: 2 * time.Second})
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
