// Package stdioprobe is the lab playing the client against a student's
// stdio server (lessons 1 and 2; lab/httpprobe is its HTTP twin): it
// starts the server, waits for its ready line, plays a scenario's schedule of chunks against it, and
// records everything that happens, with times, as a transcript. The same
// code drives `lab run` (printing as it goes) and the grader (keeping the
// record).
package stdioprobe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/wire"
)

// Options tune a Play. The zero value gives the defaults.
type Options struct {
	// Ready says how the server shows it is ready; the zero value waits
	// for a stderr line that contains "ready".
	Ready Readiness
	// ReadyWithin bounds the wait for the server to be ready; 0 means
	// ReadyDeadline. When it is not ready in time, Play notes it and goes
	// on.
	ReadyWithin time.Duration
	// ExitWithin bounds the wait for the server to exit after its stdin is
	// closed; 0 means ExitDeadlineAnswered when every request sent had
	// its answer by then (the server has only to read the end of its input
	// and exit), ExitDeadline when answers are still due. Then the server
	// is killed.
	ExitWithin time.Duration
	// TimeScale multiplies every deadline (ready, await, exit), for slow
	// machines or sandboxes; 0 means 1. The schedule itself is not scaled.
	TimeScale float64
	// MaxOutput caps what is read from stdout and from stderr, each, in
	// bytes; 0 means 8 MiB. Past it the server is killed and a note says so.
	MaxOutput int64
	// MaxLine caps one stdout or stderr line; 0 means 1 MiB.
	MaxLine int
	// OnEvent, when set, is called with each event as it happens, one at a
	// time.
	OnEvent func(event.Record)
}

func (o Options) scaled(d, def time.Duration) time.Duration {
	if d == 0 {
		d = def
	}
	if o.TimeScale > 0 {
		d = time.Duration(float64(d) * o.TimeScale)
	}
	return d
}

// Run is the record of one scenario played against one server.
type Run struct {
	Scenario *scenario.Scenario
	// StartErr is set when the server could not be started at all.
	StartErr error
	// Events are what happened, timed since the client started the
	// server.
	Events []event.Record
	// Ready reports whether the server logged a ready line in time.
	Ready bool
	// Answers are the server's stdout lines, in the order they came.
	Answers []Answer
	// Closed reports whether stdin was closed; ExitedAfterClose whether the
	// server then exited by itself before the deadline.
	Closed, ExitedAfterClose bool
	// Killed reports whether the client had to kill the server, and why.
	Killed     bool
	KillReason string
	// EarlyExit is set when the server ended before the client was done
	// with it.
	EarlyExit bool
	Exit      proc.Exit
	// AwaitMissed lists the ids whose awaited answer did not come in time.
	AwaitMissed []string
	// OutputCapped is set when the server wrote more than MaxOutput.
	OutputCapped bool
	// StderrLines counts the lines the server wrote to stderr, kept or
	// not.
	StderrLines int
	// StdoutNotKept and StderrNotKept count the lines read but not kept,
	// past KeptStdoutLines and KeptStderrLines.
	StdoutNotKept, StderrNotKept NotKept
	// ReadySeen is set when a stderr line showing readiness came, at any
	// time, kept or not (see Readiness.Shown).
	ReadySeen bool
	// DeadlinePassed is set when any deadline of the run ran out: the
	// ready wait, an await, a write, the drain of stdin, the wait for the
	// server to read, or the exit after stdin closed. A failure judged
	// from a run with a deadline passed may be the machine's slowness, not
	// the server's (see grading.Failure.Deadline).
	DeadlinePassed bool
	// Paced is set when the server left a chunk unread for the whole drain
	// deadline, so the client sent the later chunks by the schedule alone:
	// from then on two chunks may reach the server in one read, and how it
	// framed them is no longer the lab's doing alone but the machine's
	// timing too.
	Paced bool
	// Unread is set when the server, once ready, read none of what was
	// written to its stdin for the whole read deadline, and was seen not to
	// (its stdin's backlog was all of it): nothing it did in the run can
	// have depended on the scenario, whose every byte was input it never
	// took. grading.Options.StopOnceUnread reads it.
	Unread bool
}

// Answer is one line the server wrote to stdout.
type Answer struct {
	At   time.Duration
	Line string
	// Msg is the response it holds, or nil; Problem says why it is not one.
	Msg     *wire.Message
	Problem string
}

// recorder collects events from several goroutines, in the order they
// happen, and lets the player wait for an answer to an id.
type recorder struct {
	mu    sync.Mutex
	start time.Time
	run   *Run
	on    func(event.Record)
	// changed is closed and replaced when an answer arrives, if watched:
	// answered has handed it out since it was made.
	changed chan struct{}
	watched bool
	// allow is what is left of each id's allowance of answers kept past
	// KeptStdoutLines (see idAllowance).
	allow map[string]int
}

func (r *recorder) add(kind event.Kind, text string) event.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addLocked(kind, text)
}

func (r *recorder) addLocked(kind event.Kind, text string) event.Record {
	return r.addRecordLocked(event.Record{At: time.Since(r.start), Kind: kind, Text: text})
}

// deadline notes that a wait of the client's ran out: an answer, an exit,
// a read or a ready line did not come in time. The note says so in its
// Deadline field, which is what the timeline reads.
func (r *recorder) deadline(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addRecordLocked(event.Record{At: time.Since(r.start), Kind: event.Note, Text: text, Deadline: true})
}

// addRecordLocked keeps ev, with r.mu held, and hands it on.
func (r *recorder) addRecordLocked(ev event.Record) event.Record {
	r.run.Events = append(r.run.Events, ev)
	if r.on != nil {
		r.on(ev)
	}
	return ev
}

// answer records one stdout line, kept within the caps (see
// KeptStdoutLines) or counted.
func (r *recorder) answer(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !keepAnswer(len(r.run.Answers), []byte(line), r.allow) {
		shaped, _, _ := wire.ResponseShape([]byte(line))
		r.run.StdoutNotKept.add(line, shaped)
		return
	}
	ev := r.addLocked(event.Answer, line)
	msg, why := wire.ParseResponse([]byte(line))
	r.run.Answers = append(r.run.Answers, Answer{At: ev.At, Line: line, Msg: msg, Problem: why})
	if r.watched {
		close(r.changed)
		r.changed, r.watched = make(chan struct{}), false
	}
}

// stderr records one stderr line, kept within the caps (see
// KeptStderrLines) or counted; shows says it shows readiness.
func (r *recorder) stderr(line string, shows bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.run.StderrLines++
	if r.run.StderrLines <= KeptStderrLines || shows && !r.run.ReadySeen {
		r.addLocked(event.Stderr, line)
	} else {
		r.run.StderrNotKept.add(line, false)
	}
	r.run.ReadySeen = r.run.ReadySeen || shows
}

// sayNotKept notes, once the output is read, what the caps left out.
func (r *recorder) sayNotKept() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if say := r.run.StdoutNotKept.Say("stdout", KeptStdoutLines); say != "" {
		r.addLocked(event.Note, say)
	}
	if say := r.run.StderrNotKept.Say("stderr", KeptStderrLines); say != "" {
		r.addLocked(event.Note, say)
	}
}

// answered reports whether an answer to this id has come, and gives a
// channel that is closed at the next answer. An answer whose id has the
// wrong JSON type ("2" for 2) still counts: awaiting is about causality, and
// the grader judges the id's type elsewhere.
func (r *recorder) answered(id []byte) (bool, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := wire.LooseIDKey(id)
	r.watched = true
	for _, a := range r.run.Answers {
		if a.Msg != nil && wire.LooseIDKey(a.Msg.ID) == key {
			return true, r.changed
		}
	}
	return false, r.changed
}

// Play starts a server with starter and plays sc against it. It returns when
// the server has ended (by itself or killed) and its output has been read;
// it never waits longer than the scenario's schedule plus the deadlines in
// opts. An error is returned only for a broken scenario or a cancelled ctx;
// everything the server does wrong is in the Run.
func Play(ctx context.Context, sc *scenario.Scenario, starter proc.Starter, opts Options) (*Run, error) {
	run := &Run{Scenario: sc}
	rec := &recorder{run: run, on: opts.OnEvent, changed: make(chan struct{}), start: time.Now(), allow: idAllowance(sc)}
	p, err := starter.Start(ctx)
	if err != nil {
		run.StartErr = err
		rec.add(event.Note, "could not start the server: "+err.Error())
		return run, nil
	}
	maxOut, maxLine := opts.outputBounds()

	exited := make(chan struct{})
	var exit proc.Exit // written before exited is closed
	go func() {
		exit = p.Wait()
		close(exited)
	}()
	ready := make(chan struct{})
	var readyOnce sync.Once
	capped := make(chan struct{})
	var capOnce sync.Once
	overCap := func(stream string) {
		capOnce.Do(func() {
			rec.mu.Lock()
			run.OutputCapped = true
			rec.mu.Unlock()
			rec.add(event.Note, fmt.Sprintf("the server wrote more than %d bytes to %s; the client stopped it", maxOut, stream))
			close(capped)
			p.Kill()
		})
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		probing := len(opts.Ready.Probe) > 0 // only this goroutine reads it
		readLines(p.Stdout(), maxOut, maxLine, func(line string) {
			if probing {
				probing = false
				rec.add(event.Note, "the server answered the readiness probe: "+line)
				readyOnce.Do(func() { close(ready) })
				return
			}
			rec.answer(line)
		},
			func(n int64) {
				rec.add(event.Note, fmt.Sprintf("stdout line of %d bytes and more was dropped (over the %d-byte line limit)", n, maxLine))
			},
			func() { overCap("stdout") })
	}()
	go func() {
		defer readers.Done()
		readLines(p.Stderr(), maxOut, maxLine, func(line string) {
			shows := opts.Ready.stderrReady(line)
			rec.stderr(line, shows)
			if shows {
				readyOnce.Do(func() { close(ready) })
			}
		}, func(int64) {}, func() { overCap("stderr") })
	}()

	switch {
	case opts.Ready.None:
		readyOnce.Do(func() { close(ready) })
	case len(opts.Ready.Probe) > 0:
		rec.add(event.Send, string(opts.Ready.Probe))
		if _, err := p.Stdin().Write(opts.Ready.Probe); err != nil {
			rec.add(event.Note, "could not send the readiness probe: "+err.Error())
		}
	}
	pl := &player{ctx: ctx, sc: sc, p: p, rec: rec, run: run, opts: opts, exited: exited, capped: capped}
	playErr := pl.play(ready)
	awaitEnd(ctx, p, rec, opts, exited, &exit, &readers)
	pl.settleLateKill()
	if playErr != nil {
		return run, playErr
	}
	return run, ctx.Err()
}

// outputBounds are opts' caps on what is read of each stream and on one
// line, the defaults (8 MiB, 1 MiB) for the zero values.
func (o Options) outputBounds() (maxOut int64, maxLine int) {
	maxOut, maxLine = o.MaxOutput, o.MaxLine
	if maxOut <= 0 {
		maxOut = 8 << 20
	}
	if maxLine <= 0 {
		maxLine = 1 << 20
	}
	return maxOut, maxLine
}

// awaitEnd waits for the end of a server whose scenario is played: its
// exit (*exit is set before exited is closed), then the last of its output
// (the readers). A server that has been killed and still does not end (a
// sandbox that lost it) is given up on after a while, so the client never
// hangs. It sets the run's Exit, then records it.
func awaitEnd(ctx context.Context, p proc.Process, rec *recorder, opts Options, exited <-chan struct{}, exit *proc.Exit, readers *sync.WaitGroup) {
	select {
	case <-exited:
	case <-ctx.Done():
		p.Kill()
	}
	run := rec.run
	select {
	case <-exited:
		run.Exit = *exit
	case <-time.After(opts.scaled(KillDeadline, 0)):
		p.Kill()
		rec.deadline("the server did not end after it was stopped; the client gave up waiting for it")
		run.Exit = proc.Exit{Code: -1, Err: errors.New("the server did not end after it was stopped")}
	}
	// Something the server started may still hold its output open.
	if proc.Drain(proc.Done(readers.Wait), opts.scaled(DrainDeadline, 0), func() {
		if oc, ok := p.(proc.OutputCloser); ok {
			oc.CloseOutput()
		}
	}) {
		rec.add(event.Note, "the server's output stayed open after it ended (a child process?); the client stopped reading")
	}
	rec.sayNotKept()
	rec.add(event.Exit, run.Exit.String())
	if oc, ok := p.(proc.OutputCloser); ok {
		oc.CloseOutput()
	}
}

type player struct {
	ctx    context.Context
	sc     *scenario.Scenario
	p      proc.Process
	rec    *recorder
	run    *Run
	opts   Options
	exited <-chan struct{}
	capped <-chan struct{}
	// drainGaveUp is set once the server left a chunk unread for the whole
	// drain deadline; later chunks no longer wait for it.
	drainGaveUp bool
	// sent is everything written to stdin, for the requests it holds;
	// written counts its bytes, the first written at firstWrite;
	// tookInput is set once the server is seen to have read some (see
	// unread.go), deafAtClose when it had read none when stdin was closed.
	sent                   []byte
	written                int
	firstWrite             time.Time
	tookInput, deafAtClose bool
	// saidReady is set when the server showed it was ready (a stderr line,
	// a probe's answer), so that its reading time is its own.
	saidReady bool
	// lateKill is set when the server was killed for not exiting in time
	// after its stdin closed.
	lateKill bool
}

// settleLateKill takes back a kill for not exiting in time when the exit
// shows the server had ended by itself before the kill reached it (see
// proc.Exit.ByItself): the deadline passed while its end was still on its
// way to the grader, as a container's is when the engine is slow, so the
// server did exit after its stdin closed.
func (pl *player) settleLateKill() {
	run := pl.run
	if !pl.lateKill || !run.Exit.ByItself() {
		return
	}
	run.Killed, run.KillReason = false, ""
	run.ExitedAfterClose = true
	pl.rec.add(event.Note, "the server had exited by itself before it could be stopped: its exit was reported late, and counts as an exit after stdin closed")
}

// play runs the schedule. It returns an error only when ctx is done.
func (pl *player) play(ready <-chan struct{}) error {
	readyWithin := pl.opts.scaled(pl.opts.ReadyWithin, ReadyDeadline)
	t := time.NewTimer(readyWithin)
	select {
	case <-ready:
		pl.run.Ready = true
		pl.saidReady = !pl.opts.Ready.None
	case <-t.C:
		pl.run.DeadlinePassed = true
		pl.rec.deadline(pl.opts.Ready.describe(readyWithin) + "; going on without it")
	case <-pl.exited:
		pl.run.EarlyExit = true
		pl.rec.add(event.Note, "the server ended before it was ready")
		t.Stop()
		return nil
	case <-pl.ctx.Done():
		t.Stop()
		pl.p.Kill()
		return pl.ctx.Err()
	}
	t.Stop()
	t0 := time.Now()
	closed, killed := false, false
	for _, st := range pl.sc.Steps {
		if st.Kind == scenario.StepSend || st.Kind == scenario.StepClose {
			if !pl.drained() || !pl.sleepUntil(t0.Add(st.At)) {
				return pl.stop()
			}
		}
		switch st.Kind {
		case scenario.StepSend:
			pl.rec.add(event.Send, string(st.Data))
			if !pl.write(st.Data) {
				return pl.stop()
			}
		case scenario.StepClose:
			pl.close()
			closed = true
		case scenario.StepAwait:
			if !pl.await(st) {
				if pl.ctx.Err() != nil {
					return pl.stop()
				}
			}
		case scenario.StepKill:
			pl.kill("the scenario ends here")
			killed = true
		}
		if closed || killed {
			break
		}
	}
	if !killed {
		if !closed {
			pl.close()
		}
		if pl.deafAtClose {
			select {
			case <-pl.exited:
				pl.run.ExitedAfterClose = true
			default:
				pl.run.DeadlinePassed = true
				pl.killLate(pl.unreadWhy() + ", so it could not see its stdin close")
			}
			return nil
		}
		within := pl.exitWithin()
		t := time.NewTimer(within)
		defer t.Stop()
		select {
		case <-pl.exited:
			pl.run.ExitedAfterClose = true
		case <-t.C:
			pl.run.DeadlinePassed = true
			pl.killLate(fmt.Sprintf("the server was still running %v after its stdin closed", within))
			pl.lateKill = true
		case <-pl.capped:
		case <-pl.ctx.Done():
			pl.p.Kill()
			return pl.ctx.Err()
		}
	}
	return nil
}

// drained waits until the server has read everything sent so far, when the
// process can tell (a local pipe can). So the next chunk cannot land in the
// same read as the last one, even on a loaded machine: chunk boundaries are
// causal, not lucky. A server that does not read within the step deadline is
// left to the schedule and the write deadline after one wait of 2 s. It
// returns false when the run must stop.
func (pl *player) drained() bool {
	b, ok := pl.p.(proc.StdinBacklogger)
	if !ok || pl.drainGaveUp {
		return true
	}
	deadline := time.Now().Add(pl.readWithin())
	for wait := 100 * time.Microsecond; ; wait = min(2*wait, 10*time.Millisecond) {
		n, err := b.StdinBacklog()
		if err != nil || n == 0 {
			return true
		}
		pl.sawBacklog(n)
		if time.Now().After(deadline) || !pl.tookInput && pl.saidReady && !time.Now().Before(pl.readBy()) {
			// A server that does not read: pace the rest by the schedule.
			pl.drainGaveUp = true
			pl.run.DeadlinePassed, pl.run.Paced = true, true
			return true
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-pl.exited:
			t.Stop()
			return pl.noteEarlyExit()
		case <-pl.capped:
			t.Stop()
			return false
		case <-pl.ctx.Done():
			t.Stop()
			return false
		}
	}
}

// sleepUntil waits for the time of the next step. It returns false when the
// run must stop: the server ended early, flooded its output, or ctx is done.
func (pl *player) sleepUntil(when time.Time) bool {
	d := time.Until(when)
	if d <= 0 {
		select {
		case <-pl.exited:
			return pl.noteEarlyExit()
		case <-pl.capped:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-pl.exited:
		return pl.noteEarlyExit()
	case <-pl.capped:
		return false
	case <-pl.ctx.Done():
		return false
	}
}

func (pl *player) noteEarlyExit() bool {
	pl.run.EarlyExit = true
	pl.rec.add(event.Note, "the server ended before the scenario was over")
	return false
}

// await waits until the answer to st.ID (to every id of st.IDs, when it
// has them, under one deadline) has come. It reports whether it did. The
// await a scenario adds before a close is not made for a server that left
// its input unread (the drain gave up): it cannot have answered.
func (pl *player) await(st scenario.Step) bool {
	ids := st.IDs
	if len(ids) == 0 {
		ids = []json.RawMessage{st.ID}
	}
	if st.Implicit && pl.drainGaveUp {
		return false
	}
	within := pl.opts.scaled(st.Within, 0)
	t := time.NewTimer(within)
	defer t.Stop()
	deafAt, stopDeaf := pl.deafTimer()
	defer stopDeaf()
	missing := func() []string {
		var out []string
		for _, id := range ids {
			if ok, _ := pl.rec.answered(id); !ok {
				out = append(out, string(id))
			}
		}
		return out
	}
	for {
		_, changed := pl.rec.answered(nil)
		left := missing()
		if len(left) == 0 {
			return true
		}
		select {
		case <-changed:
		case <-deafAt:
			deafAt = nil
			if pl.untouched() {
				pl.run.DeadlinePassed, pl.run.Unread = true, true
				left = missing()
				pl.run.AwaitMissed = append(pl.run.AwaitMissed, left...)
				pl.rec.deadline(fmt.Sprintf("no answer to id %s: %s, so it cannot have answered", strings.Join(left, ", id "), pl.unreadWhy()))
				return false
			}
		case <-t.C:
			pl.run.DeadlinePassed = true
			left = missing()
			pl.run.AwaitMissed = append(pl.run.AwaitMissed, left...)
			pl.rec.deadline(fmt.Sprintf("no answer to id %s within %v", strings.Join(left, ", id "), within))
			return false
		case <-pl.exited:
			pl.noteEarlyExit()
			pl.run.AwaitMissed = append(pl.run.AwaitMissed, missing()...)
			return false
		case <-pl.capped:
			return false
		case <-pl.ctx.Done():
			return false
		}
	}
}

// write sends one chunk. A server that stops reading its stdin makes the
// write block once the pipe is full; after the step deadline the server is
// stopped, so the client never hangs on it. It reports whether the chunk
// went out.
func (pl *player) write(data []byte) bool {
	done := make(chan error, 1)
	go func() {
		_, err := pl.p.Stdin().Write(data)
		done <- err
	}()
	within := pl.opts.scaled(pl.opts.ExitWithin, ExitDeadline)
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			pl.rec.add(event.Note, "could not write to the server's stdin: "+describeWriteErr(err))
			return false
		}
		pl.wrote(data)
		return true
	case <-t.C:
		pl.run.DeadlinePassed = true
		pl.killLate(fmt.Sprintf("the server did not read its stdin for %v", within))
		return false
	case <-pl.ctx.Done():
		return false
	}
}

func (pl *player) close() {
	pl.deafAtClose = pl.deaf()
	pl.run.Unread = pl.run.Unread || pl.deafAtClose
	pl.rec.add(event.Close, "stdin closed")
	pl.run.Closed = true
	_ = pl.p.Stdin().Close()
}

func (pl *player) kill(why string) {
	pl.run.Killed, pl.run.KillReason = true, why
	pl.rec.add(event.Note, why+"; the client stopped the server")
	pl.p.Kill()
}

// killLate stops a server a wait ran out on (an exit, a read that did
// not come in time), and notes it as a deadline (see recorder.deadline).
func (pl *player) killLate(why string) {
	pl.run.Killed, pl.run.KillReason = true, why
	pl.rec.deadline(why + "; the client stopped the server")
	pl.p.Kill()
}

// stop ends a run that cannot go on: the server is killed unless it has
// already ended.
func (pl *player) stop() error {
	select {
	case <-pl.exited:
	default:
		// The capped channel, not run.OutputCapped: that field is the
		// recorder's, written by a reader goroutine under its lock.
		if pl.ctx.Err() == nil && !isClosed(pl.capped) && !pl.run.Killed {
			pl.kill("the run cannot go on")
		} else {
			pl.p.Kill()
		}
	}
	return pl.ctx.Err()
}

// isClosed reports whether ch is closed, without waiting.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func describeWriteErr(err error) string {
	if errors.Is(err, io.ErrClosedPipe) || strings.Contains(err.Error(), "broken pipe") {
		return "the server no longer reads its stdin (broken pipe)"
	}
	return err.Error()
}

// readLines reads lines from r and hands each to line, until r ends or
// max bytes have been read (then it calls over once and reads no more). A
// line over maxLine is reported to long and dropped.
func readLines(r io.Reader, max int64, maxLine int, line func(string), long func(int64), over func()) {
	for b, err := range wire.Lines(r, max, wire.MaxLine(maxLine), wire.KeepBlankLines()) {
		var tooLong *wire.LineTooLongError
		switch {
		case err == nil:
			line(string(b))
		case errors.As(err, &tooLong):
			long(tooLong.Dropped)
		case errors.Is(err, wire.ErrOverLimit):
			over()
		}
	}
}
