package clientplay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/rig"
)

// playing is one client scenario being played: the record it keeps, the
// rig that plays the servers, the client's process, and what the readers
// of its streams hand over.
type playing struct {
	ctx     context.Context
	sc      *clientscenario.Scenario
	run     *Record
	scale   float64
	onEvent func(event.Event)
	r       *rig.Rig
	report  *rig.ReportListener // the bridge's report, when the client is bridged
	p       proc.Process
	stdin   io.WriteCloser // the client's stdin, the commands' way in
	// mu orders the events, which come from the rig's goroutines and the
	// client's streams at once; kept caps them.
	mu        sync.Mutex
	kept      *eventCap
	out, errs *stream
	answers   chan *Answer  // the client's stdout lines, closed at its end
	outDone   chan struct{} // closed once stdout is read to its end
	errDone   chan struct{} // closed once stderr is read to its end
	output    *outputClock  // when the client's output was last read
	exited    chan proc.Exit
}

// emit keeps an event, in order, and shows it.
func (c *playing) emit(ev event.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.kept.take(&ev) {
		return
	}
	c.run.Events = append(c.run.Events, ev)
	if c.onEvent != nil {
		c.onEvent(ev)
	}
}

// note emits an event of the scenario at the rig's clock.
func (c *playing) note(kind event.Kind, text string) {
	c.emit(event.Record{At: c.r.Since(), Kind: kind, Text: text}.In(c.sc.Name))
}

// deadline notes that a wait of the player's ran out: an answer or an exit
// that did not come in time. The note says so in its Deadline field,
// which is what the timeline reads.
func (c *playing) deadline(text string) {
	c.emit(event.Record{At: c.r.Since(), Kind: event.Note, Text: text, Deadline: true}.In(c.sc.Name))
}

// scaled is d at the play's time scale.
func (c *playing) scaled(d time.Duration) time.Duration { return Scaled(d, c.scale) }

// ConfigNotePrefix starts the transcript note in which the player records
// the configuration the rig wrote for the client: relay sockets and free
// ports, which mean nothing to a student watching `lab run`.
const ConfigNotePrefix = "configuration: "

// Play runs one client scenario: the rig plays the servers, the client
// gets their configuration, and the commands go in one at a time, each
// once the answer to the one before has come. Each event goes to onEvent
// (when set) as it happens, within the transcript's caps. The error is
// for the lab's own failures; a client that cannot be started gives a
// Record with StartErr set.
func (l *Launch) Play(ctx context.Context, sc *clientscenario.Scenario, lesson fs.FS, scale float64, onEvent func(event.Event)) (*Record, error) {
	run := &Record{Scenario: sc, Scale: scale, ClosedAt: -1, ExitAt: -1, Aliases: map[string]clientscenario.Server{}, Tools: map[string][]string{}, Bridged: l.bridged}
	for _, s := range sc.Servers {
		run.Aliases[s.Alias] = s
	}
	specs, err := l.rigServers(sc, lesson, scale, run.Tools)
	if err != nil {
		return nil, err
	}
	dir, err := l.scenarioFolder()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	c := &playing{ctx: ctx, sc: sc, run: run, scale: scale, onEvent: onEvent, kept: newEventCap()}
	r, err := rig.Start(ctx, specs, rig.Options{Dir: dir, Relay: l.relay, Owner: l.owner, ReadTimeout: Scaled(rig.DefaultReadTimeout, scale),
		OnEvent: func(ev event.Record) { c.emit(ev.In(sc.Name)) }})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	defer r.Close()
	c.r = r
	cfg := filepath.Join(dir, "servers.json")
	if err := writeConfig(cfg, r.Config(), l.owner); err != nil {
		return nil, err
	}
	if l.bridged {
		if c.report, err = rig.ListenReport(filepath.Join(dir, "report.sock"), l.owner); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		defer c.report.Close()
	}
	c.note(event.Note, ConfigNotePrefix+strings.Join(strings.Fields(string(r.Config())), " "))
	reportPath := ""
	if c.report != nil {
		reportPath = c.report.Path()
	}
	p, err := l.start(cfg, reportPath, r.Bridges()).Start(ctx)
	if err != nil {
		run.StartErr = err
		return run, nil
	}
	defer p.Kill()
	c.p = p
	c.readStreams(l.maxOutput)
	exit, err := c.sendCommands()
	if err != nil {
		return nil, err
	}
	if err := c.end(exit); err != nil {
		return nil, err
	}
	c.teardown()
	return run, nil
}

// readStreams reads the client's stdout, each line an answer, and its
// stderr, and waits for its exit, each in a goroutine of its own.
func (c *playing) readStreams(maxOutput int64) {
	c.answers = make(chan *Answer, len(c.sc.Commands)+16)
	c.out, c.errs = newStream("stdout", maxOutput), newStream("stderr", maxOutput)
	c.outDone, c.errDone = make(chan struct{}), make(chan struct{})
	c.output = newOutputClock(c.r.Since)
	stdout, stderr := c.output.reader(c.p.Stdout()), c.output.reader(c.p.Stderr())
	go func() {
		defer close(c.outDone)
		defer close(c.answers)
		c.out.read(stdout, func(l streamLine) {
			a := &Answer{At: c.r.Since(), Text: l.text, Size: l.size, Cut: l.cut, Dropped: l.dropped}
			if !l.dropped && l.cut == 0 {
				var v map[string]any
				if json.Unmarshal([]byte(a.Text), &v) == nil {
					a.Value = v
				}
			}
			if !l.dropped {
				c.note(event.Answer, l.shown(c.out))
			}
			c.answers <- a
		})
	}()
	go func() {
		defer close(c.errDone)
		c.errs.read(stderr, func(l streamLine) {
			if l.dropped {
				return
			}
			text := l.text
			c.mu.Lock()
			c.run.Stderr = append(c.run.Stderr, text)
			c.mu.Unlock()
			c.note(event.Stderr, l.shown(c.errs))
		})
	}()
	c.exited = make(chan proc.Exit, 1)
	go func() { c.exited <- c.p.Wait() }()
}

// awaitExit waits, up to the exit deadline, for a client whose stdin or
// stdout has closed to exit, and returns its exit, or nil; cancellable
// says a cancelled ctx ends the wait too. What it still writes on stdout
// meanwhile is read, as extra lines, so that a client writing on cannot
// block on a pipe the player no longer reads.
func (c *playing) awaitExit(cancellable bool) *proc.Exit {
	wait := time.NewTimer(c.scaled(ExitDeadline))
	defer wait.Stop()
	done := c.ctx.Done()
	if !cancellable {
		done = nil
	}
	answers := c.answers
	for {
		select {
		case e := <-c.exited:
			c.run.ExitAt = c.r.Since()
			return &e
		case a, ok := <-answers:
			if !ok {
				answers = nil
				continue
			}
			c.run.addExtra(a)
		case <-wait.C:
			return nil
		case <-done:
			return nil
		}
	}
}

// drainAnswers reads the rest of the client's stdout once it has exited:
// the answer to command next, the one it was given last, then extra lines
// (a command never given has no answer). The read ends with the stream;
// should something the client started keep its stdout open, it is stopped
// after TeardownGrace, which ends the stream.
func (c *playing) drainAnswers(next int) {
	grace := time.NewTimer(c.scaled(TeardownGrace))
	defer grace.Stop()
	for {
		select {
		case a, ok := <-c.answers:
			if !ok {
				return
			}
			if next < len(c.run.Sent) && c.run.Answers[next] == nil {
				c.run.Answers[next] = a
				next++
			} else {
				c.run.addExtra(a)
			}
		case <-grace.C:
			c.p.Kill()
		}
	}
}

// sendCommands gives the client its commands one at a time, each once the
// answer to the one before has come, and returns its exit when it ended
// before they were all answered. A client may take its longest server
// timeout to answer a command; with no timeout given, it picks its own,
// which the player allows up to DefaultCallBudget (see AnswerWait).
func (c *playing) sendCommands() (*proc.Exit, error) {
	run, sc := c.run, c.sc
	run.Answers = make([]*Answer, len(sc.Commands))
	c.stdin = c.p.Stdin()
	for i, cmd := range sc.Commands {
		run.Sent = append(run.Sent, c.r.Since())
		c.note(event.Send, cmd)
		if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
			c.note(event.Note, fmt.Sprintf("writing command %d failed: %v", i+1, err))
			// Its stdin is closed: it is ending, or has ended. Whether the
			// write or its exit came first is a race, so the verdict is
			// the same as for a client seen to exit (see the select below).
			return c.awaitExit(true), nil
		}
		perAnswer := c.scaled(AnswerWait(sc, i))
		timer := time.NewTimer(perAnswer)
		select {
		case a, ok := <-c.answers:
			timer.Stop()
			if !ok {
				// Its stdout closed: it is ending, or has ended.
				return c.awaitExit(false), nil
			}
			run.Answers[i] = a
		case e := <-c.exited:
			timer.Stop()
			run.ExitAt = c.r.Since()
			// What it wrote before it ended still counts.
			c.drainAnswers(i)
			return &e, nil
		case <-timer.C:
			c.deadline(fmt.Sprintf("no answer to command %d came within %s", i+1, perAnswer.Round(time.Second)))
			return nil, nil
		case <-c.ctx.Done():
			timer.Stop()
			return nil, c.ctx.Err()
		}
	}
	return nil, nil
}
