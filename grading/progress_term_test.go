package grading

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
)

// fakeTerm is a terminal for tests: each write is handed to the test on
// writes, in order; gate, when set, holds every write until it is closed.
type fakeTerm struct {
	writes   chan string
	gate     chan struct{}
	terminal bool
}

func newFakeTerm() *fakeTerm { return &fakeTerm{writes: make(chan string, 1000), terminal: true} }

func (f *fakeTerm) Write(b []byte) (int, error) {
	if f.gate != nil {
		<-f.gate
	}
	f.writes <- string(b)
	return len(b), nil
}

func (f *fakeTerm) IsTerminal() bool { return f.terminal }

// next is the next write, failing the test when none comes in a long time
// (a generous deadline: each event the tests send makes exactly one write).
func (f *fakeTerm) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-f.writes:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("the progress wrote nothing")
		return ""
	}
}

// rest is every write left once the progress has stopped.
func (f *fakeTerm) rest(p *TermProgress) string {
	<-p.done
	var b strings.Builder
	for {
		select {
		case s := <-f.writes:
			b.WriteString(s)
		default:
			return b.String()
		}
	}
}

// clock is a test's clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// live starts a progress on a fake terminal under env, on a test clock and
// ticks the test sends.
func live(t *testing.T, env map[string]string, program string) (*TermProgress, *fakeTerm, *clock, chan time.Time) {
	t.Helper()
	term := newFakeTerm()
	o, ok := TermFor(term, envOf(env), program)
	if !ok {
		t.Fatal("TermFor: the fake terminal is not a terminal")
	}
	c := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	ticks := make(chan time.Time)
	o.Now, o.Ticks = c.Now, ticks
	p := NewTermProgress(term, o)
	t.Cleanup(p.Close)
	return p, term, c, ticks
}

// TestLiveGradeLine: lab grade on a terminal shows the scenario that runs
// and its countdown in place, and clears it when asked; with NO_COLOR the
// same bytes without colour codes.
func TestLiveGradeLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"colour", map[string]string{"TERM": "xterm-256color"}, []string{
			"\r\x1b[2Klab grade: \x1b[1mreadiness probe\x1b[22m, may wait \x1b[36m15s\x1b[39m more",
			"\r\x1b[2Klab grade: \x1b[1mscenario 1/2 01-chunks\x1b[22m, may wait \x1b[36m12s\x1b[39m more",
			"\r\x1b[2Klab grade: \x1b[1mscenario 1/2 01-chunks\x1b[22m, may wait \x1b[36m8s\x1b[39m more",
			"\r\x1b[2K",
			"\r\x1b[2Klab grade: \x1b[1mscenario 2/2 02-a-very-long-name-that-would-w…\x1b[22m, may wait \x1b[36m1m05s\x1b[39m more",
			"\r\x1b[2Klab grade: \x1b[1mscenario 2/2 02-a-very-long-name-that-would-w…\x1b[22m, may wait \x1b[36m0s\x1b[39m more",
			"\r\x1b[2K",
		}},
		{"NO_COLOR", map[string]string{"TERM": "xterm-256color", "NO_COLOR": "1"}, []string{
			"\r\x1b[2Klab grade: readiness probe, may wait 15s more",
			"\r\x1b[2Klab grade: scenario 1/2 01-chunks, may wait 12s more",
			"\r\x1b[2Klab grade: scenario 1/2 01-chunks, may wait 8s more",
			"\r\x1b[2K",
			"\r\x1b[2Klab grade: scenario 2/2 02-a-very-long-name-that-would-w…, may wait 1m05s more",
			"\r\x1b[2Klab grade: scenario 2/2 02-a-very-long-name-that-would-w…, may wait 0s more",
			"\r\x1b[2K",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, term, c, ticks := live(t, tc.env, "lab grade")
			var got []string
			p.Progress(ProgressEvent{Kind: ProgressScenarioStarted, Name: "readiness-probe", Index: 0, Total: 2, Budget: 15 * time.Second})
			got = append(got, term.next(t))
			p.Progress(ProgressEvent{Kind: ProgressScenarioEnded, Name: "readiness-probe"}) // drawn over by the next start
			p.Progress(ProgressEvent{Kind: ProgressScenarioStarted, Name: "01-chunks", Index: 1, Total: 2, Budget: 12 * time.Second})
			got = append(got, term.next(t))
			c.add(4 * time.Second)
			ticks <- time.Time{}
			got = append(got, term.next(t))
			p.Progress(ProgressEvent{Kind: ProgressScenarioEnded, Name: "01-chunks"})
			ticks <- time.Time{} // a tick before the next start clears the line
			got = append(got, term.next(t))
			long := "02-a-very-long-name-that-would-wrap-the-terminal-line-if-it-were-not-cut"
			p.Progress(ProgressEvent{Kind: ProgressScenarioStarted, Name: long, Index: 2, Total: 2, Budget: 65 * time.Second})
			got = append(got, term.next(t))
			c.add(70 * time.Second) // past its budget: an overloaded machine
			ticks <- time.Time{}
			got = append(got, term.next(t))
			p.Close()
			got = append(got, term.rest(p))
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("wrote\n%q\nwant\n%q", got, tc.want)
			}
			for _, w := range got {
				if n := len([]rune(stripCodes(w))); n > 79 {
					t.Errorf("a live line of %d columns wraps an 80-column terminal: %q", n, w)
				}
			}
		})
	}
}

// stripCodes drops the escape sequences of s, to count what shows.
func stripCodes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\r':
		case s[i] == '\x1b':
			for i++; i < len(s) && (s[i] < 'A' || s[i] > 'z' || s[i] == '['); i++ {
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// classEvents is a short class: calibration, then three students, two at
// a time. after runs after each event that writes.
func classEvents(p *TermProgress, c *clock, after func()) {
	send := func(ev ProgressEvent) { p.Progress(ev); after() }
	send(ProgressEvent{Kind: ProgressCalibrationStarted, Measure: true, Index: 1, Total: 3})
	send(ProgressEvent{Kind: ProgressScenarioStarted, Name: "01-chunks", Index: 1, Total: 6, Budget: 12 * time.Second})
	p.Progress(ProgressEvent{Kind: ProgressScenarioEnded, Name: "01-chunks"}) // drawn over by the next run
	send(ProgressEvent{Kind: ProgressCalibrationStarted, Measure: true, Index: 2, Total: 3})
	send(ProgressEvent{Kind: ProgressScenarioStarted, Name: "11-method-number", Index: 11, Total: 11, Budget: 61 * time.Second})
	p.Progress(ProgressEvent{Kind: ProgressScenarioEnded, Name: "11-method-number"})
	send(ProgressEvent{Kind: ProgressCalibrationEnded, Measure: true, Scale: 1.15, Measured: 4180 * time.Millisecond, Designed: 3600 * time.Millisecond})
	send(ProgressEvent{Kind: ProgressStudentStarted, Name: "ann", Total: 3})
	send(ProgressEvent{Kind: ProgressStudentStarted, Name: "ben", Total: 3})
	c.add(10 * time.Second)
	send(ProgressEvent{Kind: ProgressStudentEnded, Name: "ann", Index: 1, Total: 3, Verdict: "21/21 passed"})
	send(ProgressEvent{Kind: ProgressStudentStarted, Name: "c\x1b[2Jleo", Total: 3})
	c.add(5 * time.Second)
	send(ProgressEvent{Kind: ProgressStudentEnded, Name: "ben", Index: 2, Total: 3, Verdict: "19/21 wrong-answers"})
	c.add(2 * time.Second)
	send(ProgressEvent{Kind: ProgressStudentEnded, Name: "c\x1b[2Jleo", Index: 3, Total: 3, Verdict: "could not grade: could-not-start"})
}

// TestLiveClass: grade-class on a terminal shows the calibration in place,
// then a line per student with the count and the time left, and a live
// line of the class below them.
func TestLiveClass(t *testing.T) {
	p, term, c, _ := live(t, map[string]string{"TERM": "xterm", "NO_COLOR": "yes"}, "lab grade-class")
	var got []string
	classEvents(p, c, func() { got = append(got, term.next(t)) })
	p.Close()
	got = append(got, term.rest(p))
	want := []string{
		"\r\x1b[2Klab grade-class: calibrating 1/3",
		"\r\x1b[2Klab grade-class: calibrating 1/3, scenario 1/6 01-chunks, may wait 12s more",
		"\r\x1b[2Klab grade-class: calibrating 2/3",
		"\r\x1b[2Klab grade-class: calibrating 2/3, scenario 11/11, may wait 1m01s more", // no room for a name worth showing
		"\r\x1b[2Klab grade-class: calibrated: deadlines × 1.15 (the reference server took 4.2s for a schedule of 3.6s)\n",
		"\r\x1b[2Klab grade-class: 0/3 graded, 1 running",
		"\r\x1b[2Klab grade-class: 0/3 graded, 2 running",
		"\r\x1b[2Klab grade-class: [1/3] ann: 21/21 passed; about 20s left\nlab grade-class: 1/3 graded, 1 running, about 20s left",
		"\r\x1b[2Klab grade-class: 1/3 graded, 2 running, about 20s left",
		"\r\x1b[2Klab grade-class: [2/3] ben: 19/21 wrong-answers; about 8s left\nlab grade-class: 2/3 graded, 1 running, about 8s left",
		"\r\x1b[2Klab grade-class: [3/3] c\\x1b[2Jleo: could not grade: could-not-start\nlab grade-class: 3/3 graded, 0 running",
		"\r\x1b[2K",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}
}

// plainWriter is a pipe or a file: not a terminal.
type plainWriter struct{ testkit.Buffer }

// TestOffTerminalLines: off a terminal only the lines that stay are
// written, with no escape codes and no carriage return: the calibration's
// result and one line per student with its count and the time left.
func TestOffTerminalLines(t *testing.T) {
	w := &plainWriter{}
	o, ok := TermFor(w, envOf(map[string]string{"TERM": "xterm"}), "lab grade-class")
	if ok || o.Live || o.Steps || o.Color {
		t.Fatalf("TermFor(a pipe) = %+v, %v; want lines only, not a terminal", o, ok)
	}
	c := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	o.Now = c.Now
	p := NewTermProgress(w, o)
	classEvents(p, c, func() {})
	p.Close()
	<-p.done
	want := "lab grade-class: calibrated: deadlines × 1.15 (the reference server took 4.2s for a schedule of 3.6s)\n" +
		"lab grade-class: [1/3] ann: 21/21 passed; about 20s left\n" +
		"lab grade-class: [2/3] ben: 19/21 wrong-answers; about 8s left\n" +
		"lab grade-class: [3/3] c\\x1b[2Jleo: could not grade: could-not-start\n"
	if got := w.String(); got != want {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}
}

// TestDumbTerminal: TERM=dumb gets a line per step and no cursor movement
// nor colour.
func TestDumbTerminal(t *testing.T) {
	term := newFakeTerm()
	o, ok := TermFor(term, envOf(map[string]string{"TERM": "dumb"}), "lab grade")
	if !ok || o.Live || !o.Steps || o.Color {
		t.Fatalf("TermFor(TERM=dumb) = %+v, %v; want steps, no live line, no colour", o, ok)
	}
	p := NewTermProgress(term, o)
	p.Progress(ProgressEvent{Kind: ProgressScenarioStarted, Name: "01-chunks", Index: 1, Total: 2, Budget: 12 * time.Second})
	p.Progress(ProgressEvent{Kind: ProgressScenarioEnded, Name: "01-chunks"})
	p.Progress(ProgressEvent{Kind: ProgressScenarioStarted, Name: "02-ids", Index: 2, Total: 2, Budget: 90 * time.Second})
	p.Close()
	want := "lab grade: scenario 1/2 01-chunks (may wait up to 12s)\nlab grade: scenario 2/2 02-ids (may wait up to 1m30s)\n"
	if got := term.rest(p); got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// TestTermFor: which terminal gets what.
func TestTermFor(t *testing.T) {
	term := newFakeTerm()
	for _, tc := range []struct {
		env                map[string]string
		live, steps, color bool
		width              int
	}{
		{map[string]string{"TERM": "xterm"}, true, false, true, 0},
		{map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, true, false, false, 0},
		{map[string]string{"TERM": "xterm", "NO_COLOR": ""}, true, false, true, 0}, // set but empty: no-color.org says colour stays
		{map[string]string{"TERM": "xterm", "COLUMNS": "132"}, true, false, true, 132},
		{map[string]string{"TERM": "xterm", "COLUMNS": "wide"}, true, false, true, 0},
		{map[string]string{"TERM": "dumb"}, false, true, false, 0},
	} {
		o, ok := TermFor(term, envOf(tc.env), "lab grade")
		if !ok || o.Live != tc.live || o.Steps != tc.steps || o.Color != tc.color || o.Width != tc.width || o.Program != "lab grade" {
			t.Errorf("TermFor(%v) = %+v, %v; want live %v, steps %v, colour %v, width %d", tc.env, o, ok, tc.live, tc.steps, tc.color, tc.width)
		}
	}
	term.terminal = false
	if o, ok := TermFor(term, envOf(map[string]string{"TERM": "xterm"}), "lab grade"); ok || o.Live || o.Steps {
		t.Errorf("TermFor(not a terminal) = %+v, %v", o, ok)
	}
}

// TestSlowTerminalHoldsNothingUp: a terminal that takes no writes at all
// never makes an event wait, keeps at most MaxLines lines, and Close gives
// up on it after CloseWithin; once it takes writes again it is told how
// many lines were dropped.
func TestSlowTerminalHoldsNothingUp(t *testing.T) {
	term := newFakeTerm()
	term.gate = make(chan struct{})
	o, _ := TermFor(term, envOf(map[string]string{"TERM": "xterm"}), "lab grade-class")
	o.MaxLines, o.CloseWithin, o.Ticks = 100, 10*time.Millisecond, make(chan time.Time)
	p := NewTermProgress(term, o)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := 1; i <= 20000; i++ {
			p.Progress(ProgressEvent{Kind: ProgressStudentEnded, Name: "s", Index: i, Total: 20000, Verdict: "1/1 passed"})
		}
	}()
	select {
	case <-sent:
	case <-time.After(60 * time.Second):
		t.Fatal("events waited for a stuck terminal")
	}
	p.Close() // returns after CloseWithin although the writer is stuck
	p.mu.Lock()
	kept := len(p.lines)
	p.mu.Unlock()
	if kept > 100 {
		t.Errorf("%d lines kept for a stuck terminal, want at most 100", kept)
	}
	close(term.gate)
	out := term.rest(p)
	if !strings.Contains(out, "progress lines were dropped") {
		t.Errorf("no word of the dropped lines in %d bytes: %q", len(out), out[max(0, len(out)-300):])
	}
	// At most two batches of 100 lines, each with its note of the lines
	// dropped: the one the writer was stuck on, and the one kept meanwhile.
	if n := strings.Count(out, "\n"); n > 202 {
		t.Errorf("%d lines written, want at most 202", n)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 0: "0s", time.Millisecond: "1s", 59 * time.Second: "59s",
		60 * time.Second: "1m00s", 65*time.Second + 1: "1m06s", 2*time.Hour + 3*time.Minute: "2h03m",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
