package clientlesson

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

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/internal/servers"
	"github.com/mcplab/mcplab/lab/rig"
	"github.com/mcplab/mcplab/lab/safefile"
)

// The deadlines of a client run: how long the client may take beyond its
// servers' timeouts before the grader stops waiting (all deadlines scale).
// None of them is judged: each ends as soon as what it waits for happened,
// so a correct client never waits one out (see clienttiming.go). What it
// writes is bounded by the caps of bounds.go (see clientStream).
const (
	defaultCallBudget = 30 * time.Second
	answerMargin      = 10 * time.Second
	exitDeadline      = 15 * time.Second
	teardownGrace     = 5 * time.Second
)

// clientAnswer is one line the client wrote to stdout, as far as it was
// kept (see clientStream).
type clientAnswer struct {
	at    time.Duration
	text  string
	value map[string]any // nil when the line is not a JSON object, or was cut
	line  streamLine
}

// answerLine is the answer as an answer test reads it.
func (a *clientAnswer) answerLine() grading.AnswerLine {
	return grading.AnswerLine{Text: a.text, Value: a.value, Size: a.line.size, Cut: a.line.cut, Dropped: a.line.dropped}
}

// clientRun is what one client scenario showed: the commands and the
// answers on the rig's clock, the traffic the rig saw, and how the client
// ended.
type clientRun struct {
	sc       *clientscenario.Scenario
	aliases  map[string]clientscenario.Server
	scale    float64
	sent     []time.Duration // when each command was written; shorter when the run stopped early
	answers  []*clientAnswer // by command; nil where none came
	extra    []string        // lines beyond one per command
	extraCut int             // more of them, past the stdout cap: counted, not kept
	traffic  []rig.Event
	stderr   []string
	closedAt time.Duration // when stdin was closed; -1 if it never was
	exit     proc.Exit
	exitAt   time.Duration // -1 when the client had to be killed
	exited   bool          // it ended by itself
	early    bool          // it ended before answering every command
	killed   string        // why the grader killed it, if it did
	leftOpen []string      // stdio servers still running after the grace
	// leftRunning is the bridge's report of servers the client left
	// running when it exited (in a sandbox, which then ends them).
	leftRunning string
	// watcher, when set, says why the grader could not see what the
	// client left running: its bridge ended without a report, or stopped
	// answering, and neither the grader nor the sandbox had ended it.
	watcher  string
	startErr error
	events   []grading.Event
}

// RelayCommand returns the command that starts the lab's relay: the lab
// binary's "relay" subcommand. A stdio server of a client lesson is
// reached through it.
func RelayCommand() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the lab binary for the relay: %w", err)
	}
	return []string{exe, "relay"}, nil
}

// clientLaunch is how a client under test is started and reaches the
// servers the lab plays: the folder the rigs live in, the relay command
// their configurations name, and how to start the client for one
// configuration.
type clientLaunch struct {
	home  string
	relay []string
	start func(config, report string, bridges []rig.BridgePair) proc.Starter
	// owner is the user the client runs as, when a sandbox says (see
	// jobUser): the rig's folders and sockets are its alone.
	owner *rig.Owner
	// bridged: the client runs behind a bridge, which reports on a
	// socket of its own what the client left running.
	bridged bool

	// maxOutput caps each of the client's streams in each scenario (see
	// clientStream); 0 means DefaultStreamMax.
	maxOutput int64
}

// jobUser is a Starter, such as a sandbox's, that knows the user its
// program runs as: uid -1 when it keeps the grader's own.
type jobUser interface {
	JobUser() (uid, gid int, err error)
}

// newClientLaunch prepares a client's launch. A plain command is started
// with --config PATH added, and its stdio servers are started through
// relay. A sandbox's starter (a proc.WrapStarter) gets a relay-only copy
// of the relay's program (see rig.CopyRelayOnly) in a folder of its own,
// which the sandbox shows the client, and runs the client behind a bridge
// (lab relay --bridge), so that the HTTP servers answer at the same
// loopback address inside the sandbox's own network. When the sandbox
// says which user the client runs as, each scenario's folder and sockets
// are given to that user alone (mode 0700), and the launch's folder and
// the relay copy stay root's, which the client may enter and run but not
// list, read or change.
func newClientLaunch(starter proc.Starter, relay []string) (*clientLaunch, error) {
	if relay == nil {
		var err error
		if relay, err = RelayCommand(); err != nil {
			return nil, err
		}
	}
	var owner *rig.Owner
	if ju, ok := starter.(jobUser); ok {
		uid, gid, err := ju.JobUser()
		if err != nil {
			return nil, fmt.Errorf("finding the user the client runs as: %w", err)
		}
		if uid >= 0 {
			owner = &rig.Owner{UID: uid, GID: gid}
		}
	}
	home, err := os.MkdirTemp("", "lab-rig-")
	if err != nil {
		return nil, fmt.Errorf("making the rig's folder: %w", err)
	}
	l := &clientLaunch{home: home, relay: relay, owner: owner}
	if w, ok := starter.(proc.WrapStarter); ok {
		if owner != nil {
			// The client's user enters it to reach its own folder.
			if err := os.Chmod(home, 0o711); err != nil {
				l.close()
				return nil, fmt.Errorf("making the rig's folder: %w", err)
			}
		}
		own := filepath.Join(home, "lab")
		if err := copyProgram(relay[0], own); err != nil {
			l.close()
			return nil, fmt.Errorf("copying the relay into the rig's folder: %w", err)
		}
		l.relay = append([]string{own}, relay[1:]...)
		l.bridged = true
		l.start = func(config, report string, bridges []rig.BridgePair) proc.Starter {
			before := append([]string(nil), l.relay...)
			if report != "" {
				before = append(before, "--report", report)
			}
			for _, b := range bridges {
				before = append(before, "--bridge", b.Addr+"="+b.Socket)
			}
			before = append(before, "--")
			return w.Wrap(home, before, []string{"--config", config})
		}
		return l, nil
	}
	a, ok := starter.(proc.ArgStarter)
	if !ok {
		l.close()
		return nil, fmt.Errorf("a client is started with --config PATH added, and this way of starting programs cannot add arguments")
	}
	l.start = func(config, _ string, _ []rig.BridgePair) proc.Starter { return a.WithArgs("--config", config) }
	return l, nil
}

func (l *clientLaunch) close() { os.RemoveAll(l.home) }

// scenarioFolder makes a folder for one scenario's rig in the launch's,
// given to the client's user alone.
func (l *clientLaunch) scenarioFolder() (string, error) {
	dir, err := os.MkdirTemp(l.home, "s")
	if err != nil {
		return "", fmt.Errorf("making the rig's folder: %w", err)
	}
	if l.owner != nil {
		if err := os.Lchown(dir, l.owner.UID, l.owner.GID); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("giving the rig's folder to uid %d: %w", l.owner.UID, err)
		}
	}
	return dir, nil
}

// copyProgram copies the relay's program as a relay-only copy, which its
// user may run but not read (a copy it could read, it could undo): mode
// 0111, never a link to the original.
func copyProgram(from, to string) error {
	return rig.CopyRelayOnly(from, to, 0o111)
}

// rigServers turns a scenario's server lines into servers the rig plays,
// each found by name in the lab's list.
func rigServers(sc *clientscenario.Scenario, lesson fs.FS, scale float64) ([]rig.Server, error) {
	var out []rig.Server
	for _, s := range sc.Servers {
		ref, err := servers.Lookup(s.Server)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		rs := rig.Server{Alias: s.Alias, Down: s.Down, Hold: s.Hold, Break: s.Break, Timeout: scaled(s.Timeout, scale)}
		opts := servers.Options{MaxLine: 1 << 20, Lesson: lesson}
		switch s.Transport {
		case "http":
			if ref.HTTP == nil {
				return nil, fmt.Errorf("scenario %s: server %s does not speak HTTP", sc.Name, s.Server)
			}
			rs.HTTP, rs.Path = ref.HTTP(io.Discard, opts), ref.Path
		default:
			if ref.Serve == nil {
				return nil, fmt.Errorf("scenario %s: server %s does not speak stdio", sc.Name, s.Server)
			}
			serve := ref.Serve
			rs.Stdio = func(ctx context.Context, in io.Reader, out, log io.Writer) error {
				return serve(ctx, servers.Stdio{In: in, Out: out, Err: log}, opts)
			}
		}
		out = append(out, rs)
	}
	return out, nil
}

func scaled(d time.Duration, scale float64) time.Duration {
	if scale <= 0 {
		scale = 1
	}
	return time.Duration(float64(d) * scale)
}

// clientPlay is one client scenario being played: the run it records,
// the rig that plays the servers, the client's process, and what the
// readers of its streams hand over.
type clientPlay struct {
	ctx     context.Context
	sc      *clientscenario.Scenario
	run     *clientRun
	scale   float64
	onEvent func(grading.Event)
	r       *rig.Rig
	report  *rig.ReportListener // the bridge's report, when the client is bridged
	p       proc.Process
	stdin   io.WriteCloser // the client's stdin, the commands' way in
	// mu orders the events, which come from the rig's goroutines and the
	// client's streams at once; kept caps them.
	mu        sync.Mutex
	kept      *eventCap
	out, errs *clientStream
	answers   chan *clientAnswer // the client's stdout lines, closed at its end
	outDone   chan struct{}      // closed once stdout is read to its end
	errDone   chan struct{}      // closed once stderr is read to its end
	exited    chan proc.Exit
}

// emit keeps an event, in order, and shows it.
func (c *clientPlay) emit(ev grading.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.kept.take(&ev) {
		return
	}
	c.run.events = append(c.run.events, ev)
	if c.onEvent != nil {
		c.onEvent(ev)
	}
}

// note emits an event of the scenario at the rig's clock.
func (c *clientPlay) note(kind grading.EventKind, text string) {
	c.emit(grading.Event{Scenario: c.sc.Name, AtMS: c.r.Since().Milliseconds(), Kind: kind, Text: text})
}

// scaled is d at the play's time scale.
func (c *clientPlay) scaled(d time.Duration) time.Duration { return scaled(d, c.scale) }

// playClient runs one client scenario: the rig plays the servers, the
// client gets their configuration, and the commands go in one at a time,
// each once the answer to the one before has come.
func playClient(ctx context.Context, sc *clientscenario.Scenario, launch *clientLaunch, lesson fs.FS, scale float64, onEvent func(grading.Event)) (*clientRun, error) {
	run := &clientRun{sc: sc, scale: scale, closedAt: -1, exitAt: -1, aliases: map[string]clientscenario.Server{}}
	for _, s := range sc.Servers {
		run.aliases[s.Alias] = s
	}
	specs, err := rigServers(sc, lesson, scale)
	if err != nil {
		return nil, err
	}
	dir, err := launch.scenarioFolder()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	c := &clientPlay{ctx: ctx, sc: sc, run: run, scale: scale, onEvent: onEvent, kept: newEventCap()}
	r, err := rig.Start(ctx, specs, rig.Options{Dir: dir, Relay: launch.relay, Owner: launch.owner, ReadTimeout: scaled(rig.DefaultReadTimeout, scale),
		OnEvent: func(ev rig.Event) { c.emit(trafficEvent(sc.Name, ev)) }})
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	defer r.Close()
	c.r = r
	cfg := filepath.Join(dir, "servers.json")
	if err := writeConfig(cfg, r.Config(), launch.owner); err != nil {
		return nil, err
	}
	if launch.bridged {
		if c.report, err = rig.ListenReport(filepath.Join(dir, "report.sock"), launch.owner); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		defer c.report.Close()
	}
	c.note(grading.EventNote, "configuration: "+strings.Join(strings.Fields(string(r.Config())), " "))
	reportPath := ""
	if c.report != nil {
		reportPath = c.report.Path()
	}
	p, err := launch.start(cfg, reportPath, r.Bridges()).Start(ctx)
	if err != nil {
		run.startErr = err
		return run, nil
	}
	defer p.Kill()
	c.p = p
	c.readStreams(launch.maxOutput)
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
func (c *clientPlay) readStreams(maxOutput int64) {
	c.answers = make(chan *clientAnswer, len(c.sc.Commands)+16)
	c.out, c.errs = newClientStream("stdout", maxOutput), newClientStream("stderr", maxOutput)
	c.outDone, c.errDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(c.outDone)
		defer close(c.answers)
		c.out.read(c.p.Stdout(), func(l streamLine) {
			a := &clientAnswer{at: c.r.Since(), text: l.text, line: l}
			if !l.dropped && l.cut == 0 {
				var v map[string]any
				if json.Unmarshal([]byte(a.text), &v) == nil {
					a.value = v
				}
			}
			if !l.dropped {
				c.note(grading.EventAnswer, l.shown(c.out))
			}
			c.answers <- a
		})
	}()
	go func() {
		defer close(c.errDone)
		c.errs.read(c.p.Stderr(), func(l streamLine) {
			if l.dropped {
				return
			}
			text := l.text
			c.mu.Lock()
			c.run.stderr = append(c.run.stderr, text)
			c.mu.Unlock()
			c.note(grading.EventStderr, l.shown(c.errs))
		})
	}()
	c.exited = make(chan proc.Exit, 1)
	go func() { c.exited <- c.p.Wait() }()
}

// awaitExit waits, up to the exit deadline, for a client whose stdin or
// stdout has closed to exit, and returns its exit, or nil; cancellable
// says a cancelled ctx ends the wait too.
func (c *clientPlay) awaitExit(cancellable bool) *proc.Exit {
	wait := time.NewTimer(c.scaled(exitDeadline))
	defer wait.Stop()
	done := c.ctx.Done()
	if !cancellable {
		done = nil
	}
	select {
	case e := <-c.exited:
		c.run.exitAt = c.r.Since()
		return &e
	case <-wait.C:
	case <-done:
	}
	return nil
}

// sendCommands gives the client its commands one at a time, each once the
// answer to the one before has come, and returns its exit when it ended
// before they were all answered. A client may take its longest server
// timeout to answer a command; with no timeout given, it picks its own,
// which the grader allows up to defaultCallBudget (see answerWait).
func (c *clientPlay) sendCommands() (*proc.Exit, error) {
	run, sc := c.run, c.sc
	run.answers = make([]*clientAnswer, len(sc.Commands))
	c.stdin = c.p.Stdin()
	for i, cmd := range sc.Commands {
		run.sent = append(run.sent, c.r.Since())
		c.note(grading.EventSend, cmd)
		if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
			c.note(grading.EventNote, fmt.Sprintf("writing command %d failed: %v", i+1, err))
			// Its stdin is closed: it is ending, or has ended. Whether the
			// write or its exit came first is a race, so the verdict is
			// the same as for a client seen to exit (see the select below).
			return c.awaitExit(true), nil
		}
		perAnswer := c.scaled(answerWait(sc, i))
		timer := time.NewTimer(perAnswer)
		select {
		case a, ok := <-c.answers:
			timer.Stop()
			if !ok {
				// Its stdout closed: it is ending, or has ended.
				return c.awaitExit(false), nil
			}
			run.answers[i] = a
		case e := <-c.exited:
			timer.Stop()
			run.exitAt = c.r.Since()
			// What it wrote before it ended still counts.
			<-c.outDone
			j := i
			for a := range c.answers {
				if j < len(run.answers) {
					run.answers[j] = a
					j++
				} else {
					run.addExtra(a)
				}
			}
			return &e, nil
		case <-timer.C:
			c.note(grading.EventNote, fmt.Sprintf("no answer to command %d came within %s", i+1, perAnswer.Round(time.Second)))
			return nil, nil
		case <-c.ctx.Done():
			timer.Stop()
			return nil, c.ctx.Err()
		}
	}
	return nil, nil
}

// end ends the client's run: with its commands over (exit is nil) its
// stdin is closed and it gets the exit deadline to exit by itself before
// it is killed; whatever else comes on stdout meanwhile is an extra line.
func (c *clientPlay) end(exit *proc.Exit) error {
	run := c.run
	for _, a := range run.answers {
		if a == nil {
			run.early = true
		}
	}
	// From now on whatever else comes on stdout is an extra line: read
	// it while the client ends, so a client that writes more than it is
	// asked for is never stopped by a pipe the grader no longer reads.
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
		run.early = true
	}
	run.exit = *exit
	c.note(grading.EventExit, exit.String())
	c.awaitStdioServers()
	c.judgeLeftRunning()
	c.p.Kill()
	return nil
}

// closeStdin closes the client's stdin and waits for it to exit, killing
// it past the exit deadline.
func (c *clientPlay) closeStdin() (*proc.Exit, error) {
	run := c.run
	c.stdin.Close()
	run.closedAt = c.r.Since()
	c.note(grading.EventClose, "")
	timer := time.NewTimer(c.scaled(exitDeadline))
	defer timer.Stop()
	select {
	case e := <-c.exited:
		run.exitAt = c.r.Since()
		run.exited = true
		return &e, nil
	case <-timer.C:
		// A bridge that answers no ping was stopped: the client
		// may have exited long ago, with its watcher silenced.
		if c.report != nil && !c.report.Ping(c.ctx, c.scaled(teardownGrace)) && c.ctx.Err() == nil {
			run.watcher = fmt.Sprintf("%s answered nothing when the grader asked it, %s after the client's stdin closed (it had been stopped, as SIGSTOP does), so the grader could not see what the client left running", bridgeName, c.scaled(exitDeadline).Round(time.Second))
		}
		run.killed = fmt.Sprintf("the client was still running %s after its stdin closed, and was killed", c.scaled(exitDeadline).Round(time.Second))
		c.note(grading.EventNote, run.killed)
		c.p.Kill()
		e := <-c.exited
		return &e, nil
	case <-c.ctx.Done():
		return nil, c.ctx.Err()
	}
}

// awaitStdioServers gives the kernel a moment to tell the rig about the
// stdio servers the client killed last: it had to end them before it
// exited.
func (c *clientPlay) awaitStdioServers() {
	deadline := time.NewTimer(c.scaled(teardownGrace))
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

// judgeLeftRunning records what the client left running, before the
// grader's own kill ends it too: the stdio servers still open, and the
// bridge's report.
func (c *clientPlay) judgeLeftRunning() {
	run := c.run
	run.leftOpen = stillOpen(c.r.Events())
	if c.report == nil {
		return
	}
	// The bridge reported before it exited, and its connection ended as
	// it did: this waits only for a bridge that is still running.
	left, watcher := bridgeVerdict(c.report.Wait(c.ctx, c.scaled(exitDeadline)), run.exit, run.killed == "" && run.exit.Reason == "" && c.ctx.Err() == nil)
	run.leftRunning = left
	if run.watcher == "" {
		run.watcher = watcher
	}
}

// teardown waits for the client's streams to be read to their end and
// adds what their caps and the event cap left out.
func (c *clientPlay) teardown() {
	<-c.errDone
	for _, st := range []*clientStream{c.out, c.errs} {
		if why := st.summary(); why != "" {
			c.note(grading.EventNote, why)
		}
	}
	run := c.run
	if why := c.kept.summary(c.sc.Name); why != "" {
		c.mu.Lock()
		run.events = append(run.events, grading.Event{Scenario: c.sc.Name, AtMS: c.r.Since().Milliseconds(), Kind: grading.EventNote, Text: why})
		c.mu.Unlock()
	}
	run.traffic = c.r.Events()
	c.mu.Lock()
	defer c.mu.Unlock()
	run.events = append([]grading.Event(nil), run.events...)
}

// WatchClient plays one client scenario and shows every event through
// onEvent as it happens: the commands and answers, the client's stderr,
// and every message between the client and the servers the lab plays.
// `lab run` uses it to show a lesson's client at work.
func WatchClient(ctx context.Context, sc *clientscenario.Scenario, starter proc.Starter, lesson fs.FS, relay []string, onEvent func(grading.Event)) error {
	launch, err := newClientLaunch(starter, relay)
	if err != nil {
		return err
	}
	defer launch.close()
	run, err := playClient(ctx, sc, launch, lesson, 1, onEvent)
	if err != nil {
		return err
	}
	if run.startErr != nil {
		return fmt.Errorf("the client did not start: %w", run.startErr)
	}
	return nil
}

// stillOpen lists the stdio server starts that had not ended when the
// events were taken.
func stillOpen(evs []rig.Event) []string {
	open := map[string]bool{}
	var order []string
	for _, ev := range evs {
		key := fmt.Sprintf("%s (start %d)", ev.Server, ev.Conn)
		switch ev.Kind {
		case rig.KindStart:
			open[key] = true
			order = append(order, key)
		case rig.KindGone:
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

func trafficEvent(scenario string, ev rig.Event) grading.Event {
	out := grading.Event{Scenario: scenario, AtMS: ev.At.Milliseconds()}
	where := fmt.Sprintf("%s#%d", ev.Server, ev.Conn)
	switch ev.Kind {
	case rig.KindSend:
		out.Kind, out.Text = grading.EventToServer, where+" "+ev.Text
	case rig.KindPost:
		out.Kind, out.Text = grading.EventToServer, where+" ["+headerSummary(ev.Header)+"] "+ev.Text
	case rig.KindAnswer: // a stdio server's line or an HTTP answer's message
		out.Kind, out.Text = grading.EventFromServer, where+" "+ev.Text
	case rig.KindStatus:
		out.Kind, out.Text = grading.EventFromServer, fmt.Sprintf("%s HTTP %d %s", where, ev.Status, ev.Text)
	default:
		out.Kind, out.Text = grading.EventRig, where+" "+rig.Word(ev.Kind)+" "+ev.Text
	}
	out.Text = strings.TrimSpace(out.Text)
	return out
}

// writeConfig writes a scenario's configuration, a new file readable by
// the client's user alone.
func writeConfig(path string, data []byte, owner *rig.Owner) error {
	return safefile.CreateNew(path, "the configuration", data, 0o600, func(f *os.File) error {
		if owner == nil {
			return nil
		}
		if err := f.Chown(owner.UID, owner.GID); err != nil {
			return fmt.Errorf("giving the configuration to uid %d: %w", owner.UID, err)
		}
		return nil
	})
}

// bridgeName is how a student's report names the bridge.
const bridgeName = "the bridge that runs the client (its parent process: the grader's watcher of what the client leaves running)"

// watcherExpected is what a client does about its bridge, and how to fix
// one that ended or stopped it.
const watcherExpected = "the client's parent process left alone until the client exits: a client ends only the processes it started (its stdio servers); do not kill or stop your parent (no kill of $PPID or getppid(), no SIGSTOP)"

// bridgeVerdict says, from the bridge's report, what the client left
// running when it exited (empty when nothing), and why the grader could
// not see it (empty when it could). A bridge that connected but ended
// without a report, when neither the grader nor the sandbox ended it
// (ended says they did not), was ended by the client, which then cannot
// say it left nothing behind; exit is how the bridge ended.
func bridgeVerdict(rep rig.Report, exit proc.Exit, ended bool) (left, watcher string) {
	switch {
	case rep.Reported && rep.LeftRunning > 0:
		return fmt.Sprintf("%d %s", rep.LeftRunning, rig.LeftRunningText(rep.LeftRunning)), ""
	case rep.Reported:
		return "", ""
	case rep.Problem != "":
		return "", bridgeName + " sent a report the grader could not read (" + rep.Problem + "), so the grader could not see what the client left running"
	case rep.Connected && ended:
		return "", fmt.Sprintf("%s %s before it could report, so the grader could not see what the client left running: its watcher was ended, and not by the grader or the sandbox", bridgeName, exit)
	}
	return "", ""
}
