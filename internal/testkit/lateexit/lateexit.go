// Package lateexit starts programs whose end reaches the caller late, for
// tests of what a grader makes of a kill that lands after the end. Only
// tests import it.
package lateexit

import (
	"context"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/proc"
)

// Starter starts its Starter's programs with an end that reaches the
// caller late, as a container's does when its engine is slow: the program
// ends as it would, but Wait tells of it only once Kill was called (or
// after an hour), with the program's own status, as for a kill that came
// after the end; with Hung, with the "killed" of a program the kill ended.
type Starter struct {
	proc.Starter
	Hung bool
}

// Start starts the program.
func (s Starter) Start(ctx context.Context) (proc.Process, error) {
	p, err := s.Starter.Start(ctx)
	if err != nil {
		return nil, err
	}
	return &lateProcess{Process: p, killed: make(chan struct{}), hung: s.Hung}, nil
}

// WithArgs starts the program with more arguments, when its Starter can.
func (s Starter) WithArgs(args ...string) proc.Starter {
	if a, ok := s.Starter.(proc.ArgStarter); ok {
		return Starter{Starter: a.WithArgs(args...), Hung: s.Hung}
	}
	return s
}

type lateProcess struct {
	proc.Process
	hung   bool
	once   sync.Once
	killed chan struct{}
}

// Kill kills the program, which has most likely ended already, and lets
// Wait tell of its end.
func (p *lateProcess) Kill() {
	p.once.Do(func() {
		p.Process.Kill()
		close(p.killed)
	})
}

// Wait waits for the program's end, then for Kill.
func (p *lateProcess) Wait() proc.Exit {
	exit := p.Process.Wait()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	select {
	case <-p.killed:
	case <-t.C:
	}
	if p.hung {
		return proc.Exit{Code: -1, Signal: "killed"}
	}
	return exit
}
