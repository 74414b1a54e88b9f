package grading

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/textesc"
)

// TermOptions say how a TermProgress shows a grading's progress.
type TermOptions struct {
	// Program starts every line, such as "lab grade".
	Program string
	// Live keeps one status line at the bottom, redrawn in place (carriage
	// return, erase line): what runs now and how long it may still take.
	// Without it only lines that stay are written: one per student graded
	// and the calibration's result (and, with Steps, one per scenario and
	// calibration run).
	Live bool
	// Color colours the live line with ANSI codes (see https://no-color.org).
	Color bool
	// Steps, when not Live, also writes a line as each scenario and each
	// calibration run starts: for a terminal that cannot move its cursor
	// (TERM=dumb).
	Steps bool
	// Width is the terminal's width in columns; the live line is cut to
	// fit, so it never wraps. 0 means 80.
	Width int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Ticks says when to redraw the live line for its countdown; nil means
	// every second.
	Ticks <-chan time.Time
	// MaxLines bounds the lines kept for a writer slower than the grading;
	// past it lines are dropped, and counted. 0 means 10000.
	MaxLines int
	// CloseWithin bounds how long Close waits for a slow writer; 0 means 2 s.
	CloseWithin time.Duration
}

// IsTerminal reports whether w is a terminal: a file that is a character
// device, or a writer that says it is one with an IsTerminal method (a
// test's fake terminal).
func IsTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// TermFor is how progress suits w, in the environment getenv reads: Live on
// a terminal whose TERM is not "dumb" (nor unset on Windows, whose console
// may not know the codes), coloured unless NO_COLOR is set and not empty,
// one line a step on a dumb terminal, and only lines that stay when w is
// not a terminal (a pipe, a file, CI). terminal reports whether w is one.
func TermFor(w io.Writer, getenv func(string) string, program string) (opts TermOptions, terminal bool) {
	opts.Program = program
	if !IsTerminal(w) {
		return opts, false
	}
	term := getenv("TERM")
	dumb := term == "dumb" || (term == "" && runtime.GOOS == "windows")
	opts.Live = !dumb
	opts.Steps = dumb
	opts.Color = opts.Live && getenv("NO_COLOR") == ""
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n >= 20 && n <= 1000 {
		opts.Width = n
	}
	return opts, true
}

// TermProgress shows a grading's progress on a writer, stderr: it is a
// Progress. Events only change its state and never wait for the writer; a
// goroutine of its own writes, so a slow or stuck terminal never holds the
// grading up. Close clears the live line before anything else is printed.
type TermProgress struct {
	w         io.Writer
	o         TermOptions
	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	mu sync.Mutex
	// What runs now: a scenario (since scenarioAt), a calibration run.
	scenario   *ProgressEvent
	scenarioAt time.Time
	calib      *ProgressEvent
	// The class: students started, running and done, since classAt; the
	// estimate of the end, once one student is done.
	total, graded, running int
	classAt, endAt         time.Time
	lines                  []string
	dropped                int
	closed                 bool
}

// NewTermProgress starts showing progress on w as o says; Close stops it.
func NewTermProgress(w io.Writer, o TermOptions) *TermProgress {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Width <= 0 {
		o.Width = 80
	}
	if o.MaxLines <= 0 {
		o.MaxLines = 10000
	}
	if o.CloseWithin <= 0 {
		o.CloseWithin = 2 * time.Second
	}
	p := &TermProgress{w: w, o: o, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

// Progress takes in one event; it never waits for the writer.
func (p *TermProgress) Progress(ev ProgressEvent) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	now := p.o.Now()
	switch ev.Kind {
	case ProgressScenarioStarted:
		e := ev
		p.scenario, p.scenarioAt = &e, now
		if p.o.Steps && !p.o.Live && p.calib == nil {
			p.addLine(fmt.Sprintf("%s: %s (may wait up to %s)", p.o.Program, scenarioLabel(ev), shortDuration(ev.Budget)))
		}
	case ProgressScenarioEnded:
		p.scenario = nil
	case ProgressCalibrationStarted:
		e := ev
		p.calib = &e
		if p.o.Steps && !p.o.Live {
			p.addLine(p.o.Program + ": " + calibLabel(ev))
		}
	case ProgressCalibrationEnded:
		p.calib, p.scenario = nil, nil
		if ev.Measure && ev.Scale > 0 {
			p.addLine(fmt.Sprintf("%s: calibrated: deadlines × %g (the reference server took %s for a schedule of %s)",
				p.o.Program, ev.Scale, ev.Measured.Round(100*time.Millisecond), ev.Designed.Round(100*time.Millisecond)))
		}
	case ProgressStudentStarted:
		if p.classAt.IsZero() {
			p.classAt = now
		}
		p.running++
		p.total = max(p.total, ev.Total)
	case ProgressStudentEnded:
		if p.classAt.IsZero() {
			p.classAt = now
		}
		p.running = max(0, p.running-1)
		p.graded, p.total = ev.Index, ev.Total
		line := fmt.Sprintf("%s: [%d/%d] %s: %s", p.o.Program, ev.Index, ev.Total, textesc.Line(ev.Name), ev.Verdict)
		if ev.Index > 0 && ev.Index < ev.Total {
			elapsed := now.Sub(p.classAt)
			left := time.Duration(float64(elapsed) * float64(ev.Total-ev.Index) / float64(ev.Index))
			p.endAt = now.Add(left)
			line += "; about " + shortDuration(left) + " left"
		}
		p.addLine(line)
	}
	p.mu.Unlock()
	if ev.Kind == ProgressScenarioEnded {
		// The next scenario's start redraws the line, without a flicker;
		// Close or a tick clears it if none comes.
		return
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// addLine keeps a line to write, or counts it as dropped past MaxLines.
// p.mu is held.
func (p *TermProgress) addLine(s string) {
	if len(p.lines) >= p.o.MaxLines {
		p.dropped++
		return
	}
	p.lines = append(p.lines, s)
}

// Close writes the lines still waiting, clears the live line and stops,
// waiting at most CloseWithin for the writer. Events after it are dropped.
func (p *TermProgress) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		close(p.stop)
	})
	t := time.NewTimer(p.o.CloseWithin)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	}
}

// loop writes what the events changed, and redraws the countdown.
func (p *TermProgress) loop() {
	defer close(p.done)
	tick := p.o.Ticks
	if p.o.Live && tick == nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	var shown string // the live line on screen, "" when none is
	broken := false
	for {
		final := false
		select {
		case <-p.wake:
		case <-tick:
		case <-p.stop:
			final = true
		}
		p.mu.Lock()
		lines := p.lines
		p.lines = nil
		if p.dropped > 0 {
			what := fmt.Sprintf("%d progress lines were", p.dropped)
			if p.dropped == 1 {
				what = "1 progress line was"
			}
			lines = append(lines, fmt.Sprintf("%s: %s dropped: the terminal took them more slowly than the grading made them", p.o.Program, what))
			p.dropped = 0
		}
		status := ""
		if p.o.Live && !final {
			status = p.statusLocked()
		}
		p.mu.Unlock()
		var b strings.Builder
		if p.o.Live && shown != "" && (len(lines) > 0 || status != shown) {
			b.WriteString("\r\x1b[2K")
			shown = ""
		}
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		if status != "" && status != shown {
			if b.Len() == 0 {
				b.WriteString("\r\x1b[2K")
			}
			b.WriteString(status)
			shown = status
		}
		if b.Len() > 0 && !broken {
			if _, err := io.WriteString(p.w, b.String()); err != nil {
				broken = true // a closed stderr: the grading goes on without it
			}
		}
		if final {
			return
		}
	}
}

// statusLocked is the live line for the state now ("" for none), cut
// to the width: a long scenario name is shortened first. p.mu is held.
func (p *TermProgress) statusLocked() string {
	now := p.o.Now()
	head := p.o.Program + ": "
	switch {
	case p.calib != nil && p.calib.Measure:
		head += fmt.Sprintf("calibrating %d/%d", p.calib.Index, p.calib.Total)
	case p.calib != nil:
		head += "grading the reference server"
	case !p.classAt.IsZero():
		head += fmt.Sprintf("%d/%d graded, %d running", p.graded, p.total, p.running)
		if p.graded > 0 && p.graded < p.total {
			head += ", about \x01" + shortDuration(p.endAt.Sub(now)) + "\x01 left"
		}
	}
	if p.scenario == nil {
		if head == p.o.Program+": " {
			return ""
		}
		return p.paint(head, "", "", 0)
	}
	if !strings.HasSuffix(head, ": ") {
		head += ", "
	}
	sc := *p.scenario
	label, name := "readiness probe", ""
	if sc.Index > 0 {
		label, name = fmt.Sprintf("scenario %d/%d ", sc.Index, sc.Total), textesc.Line(sc.Name)
	}
	left := shortDuration(sc.Budget - now.Sub(p.scenarioAt))
	tail := "\x00, may wait \x01" + left + "\x01 more"
	// Room for the longest countdown below an hour ("59m59s"), so the name
	// keeps one length while it counts down.
	return p.paint(head+"\x00"+label, name, tail, visibleLen(tail)+max(0, len("59m59s")-len(left)))
}

// paint joins head, the elastic middle and tail (for which tailRoom
// columns are kept) into one line no wider than the terminal less one
// column, shortening middle first, then cutting the end; and it turns the
// marks \x00 (bold) and \x01 (cyan) into colour codes, or drops them
// without Color.
func (p *TermProgress) paint(head, middle, tail string, tailRoom int) string {
	room := p.o.Width - 1 - visibleLen(head) - max(tailRoom, visibleLen(tail))
	if m := []rune(middle); len(m) > room {
		// A name cut to a stub says nothing: then it is left out.
		middle = ""
		if room >= minName {
			middle = string(m[:room-1]) + "…"
		} else {
			head = strings.TrimSuffix(head, " ")
		}
	}
	cut := visibleLen(head+middle+tail) > p.o.Width-1
	var b strings.Builder
	visible := 0
	bold, cyan := false, false
	for _, r := range head + middle + tail {
		switch r {
		case '\x00':
			bold = !bold
			p.code(&b, bold, "\x1b[1m", "\x1b[22m")
			continue
		case '\x01':
			cyan = !cyan
			p.code(&b, cyan, "\x1b[36m", "\x1b[39m")
			continue
		}
		if cut && visible == p.o.Width-2 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		visible++
	}
	if p.o.Color && (bold || cyan) {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// minName is the fewest columns a shortened name is shown in.
const minName = 12

// visibleLen counts the runes of s that show (not the colour marks).
func visibleLen(s string) int {
	n := 0
	for _, r := range s {
		if r != '\x00' && r != '\x01' {
			n++
		}
	}
	return n
}

// code writes the colour code that turns a colour on or off, with Color.
func (p *TermProgress) code(b *strings.Builder, on bool, start, end string) {
	switch {
	case !p.o.Color:
	case on:
		b.WriteString(start)
	default:
		b.WriteString(end)
	}
}

// scenarioLabel names a scenario and its place: "scenario 2/6 03-concurrent".
func scenarioLabel(ev ProgressEvent) string {
	if ev.Index == 0 {
		return "readiness probe"
	}
	return fmt.Sprintf("scenario %d/%d %s", ev.Index, ev.Total, textesc.Line(ev.Name))
}

// calibLabel says what a calibration run is for, on a line of its own.
func calibLabel(ev ProgressEvent) string {
	if !ev.Measure {
		return "grading the reference server once, to compare each student's transcript with it"
	}
	return fmt.Sprintf("calibrating the deadlines: the reference server's run %d of %d", ev.Index, ev.Total)
}

// shortDuration shows d in whole seconds, rounded up: "7s", "1m05s",
// "2h03m".
func shortDuration(d time.Duration) string {
	s := int64((max(d, 0) + time.Second - 1) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}
