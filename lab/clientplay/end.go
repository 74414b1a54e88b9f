package clientplay

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
)

// end ends the client's run: with its commands over (exit is nil) its
// stdin is closed and it gets the exit deadline to exit by itself before
// it is killed; whatever else comes on stdout meanwhile is an extra line.
func (c *playing) end(exit *proc.Exit) error {
	run := c.run
	for _, a := range run.Answers {
		if a == nil {
			run.Early = true
		}
	}
	// From now on whatever else comes on stdout is an extra line: read
	// it while the client ends, so a client that writes more than it is
	// asked for is never stopped by a pipe the player no longer reads.
	extraDone := make(chan struct{})
	go func() {
		defer close(extraDone)
		for a := range c.answers {
			run.addExtra(a)
		}
	}()
	defer func() { <-extraDone }()
	if exit == nil {
		var err error
		if exit, err = c.closeStdin(); err != nil {
			c.p.Kill()
			return err
		}
	} else {
		run.Early = true
	}
	run.Exit = *exit
	c.note(event.Exit, exit.String())
	c.awaitStdioServers()
	c.recordLeftRunning()
	c.p.Kill()
	return nil
}

// closeStdin closes the client's stdin and waits for it to exit, killing
// it past the exit deadline, which counts from the close or from the last
// of its output the player read after it (see exitWatch).
func (c *playing) closeStdin() (*proc.Exit, error) {
	run := c.run
	// Taken before the close, so that whatever the client writes once it
	// sees its stdin end is read after ClosedAt.
	run.ClosedAt = c.r.Since()
	c.stdin.Close()
	c.note(event.Close, "")
	w := exitWatch{out: c.output, closed: run.ClosedAt, deadline: c.scaled(ExitDeadline), most: c.scaled(ExitDeadlineMax)}
	timer := time.NewTimer(w.left(c.r.Since()))
	defer timer.Stop()
	for {
		select {
		case e := <-c.exited:
			run.ExitAt = c.r.Since()
			run.Exited = true
			return &e, nil
		case <-timer.C:
			if left := w.left(c.r.Since()); left > 0 {
				timer.Reset(left) // its output was read meanwhile
				continue
			}
			return c.killLate(w), nil
		case <-c.ctx.Done():
			return nil, c.ctx.Err()
		}
	}
}

// killLate kills a client whose exit deadline passed, and says why. An
// exit with the client's own status shows the kill came after the client
// had ended (see proc.Exit.ByItself): its end was only reported late, as a
// container's is when the engine is slow, and it counts as an exit.
func (c *playing) killLate(w exitWatch) *proc.Exit {
	run := c.run
	why, after := w.verdict()
	// A bridge that answers no ping was stopped: the client may have
	// exited long ago, with its watcher silenced.
	silent := c.report != nil && !c.report.Ping(c.ctx, c.scaled(TeardownGrace)) && c.ctx.Err() == nil
	c.deadline(why)
	c.p.Kill()
	e := <-c.exited
	if e.ByItself() {
		run.ExitAt = c.r.Since()
		run.Exited = true
		c.note(event.Note, "the client had exited by itself before it could be stopped: its exit was reported late, and counts as an exit after stdin closed")
		return &e
	}
	run.Killed = why
	if silent {
		run.Silent = after
	}
	return &e
}

// awaitStdioServers gives the kernel a moment to tell the rig about the
// stdio servers the client killed last: it had to end them before it
// exited.
func (c *playing) awaitStdioServers() {
	deadline := time.NewTimer(c.scaled(TeardownGrace))
	defer deadline.Stop()
	for {
		open, changed := c.r.OpenStdio()
		if open == 0 {
			return
		}
		select {
		case <-changed:
			continue
		case <-deadline.C:
		case <-c.ctx.Done():
		}
		return
	}
}

// recordLeftRunning records what the client left running, before the
// player's own kill ends it too: the stdio servers still open, and the
// bridge's report.
func (c *playing) recordLeftRunning() {
	run := c.run
	run.LeftOpen = stillOpen(c.r.Events())
	if c.report == nil {
		return
	}
	// The bridge reported before it exited, and its connection ended as
	// it did: this waits only for a bridge that is still running.
	run.Report = c.report.Wait(c.ctx, c.scaled(ExitDeadline))
	run.Cancelled = c.ctx.Err() != nil
}

// teardown waits for the client's streams to be read to their end and
// adds what their caps and the event cap left out.
func (c *playing) teardown() {
	<-c.errDone
	for _, st := range []*stream{c.out, c.errs} {
		if why := st.summary(); why != "" {
			c.note(event.Note, why)
		}
	}
	run := c.run
	if why := c.kept.summary(c.sc.Name); why != "" {
		c.mu.Lock()
		run.Events = append(run.Events, event.Record{At: c.r.Since(), Kind: event.Note, Text: why}.In(c.sc.Name))
		c.mu.Unlock()
	}
	run.Traffic = c.r.Events()
	c.mu.Lock()
	defer c.mu.Unlock()
	run.Events = append([]event.Event(nil), run.Events...)
}

// Watch plays one client scenario and shows every event through onEvent
// as it happens: the commands and answers, the client's stderr, and every
// message between the client and the servers the lab plays. `lab run`
// uses it to show a lesson's client at work.
func Watch(ctx context.Context, sc *clientscenario.Scenario, starter proc.Starter, lesson fs.FS, opts Options, onEvent func(event.Event)) error {
	launch, err := NewLaunch(starter, opts)
	if err != nil {
		return err
	}
	defer launch.Close()
	run, err := launch.Play(ctx, sc, lesson, 1, onEvent)
	if err != nil {
		return err
	}
	if run.StartErr != nil {
		return fmt.Errorf("the client did not start: %w", run.StartErr)
	}
	return nil
}

// stillOpen lists the stdio server starts that had not ended when the
// events were taken.
func stillOpen(evs []event.Record) []string {
	open := map[string]bool{}
	var order []string
	for _, ev := range evs {
		key := fmt.Sprintf("%s (start %d)", ev.Server, ev.Conn)
		switch ev.Kind {
		case event.Start:
			open[key] = true
			order = append(order, key)
		case event.Exit:
			delete(open, key)
		}
	}
	var out []string
	for _, k := range order {
		if open[k] {
			out = append(out, k)
		}
	}
	return out
}
