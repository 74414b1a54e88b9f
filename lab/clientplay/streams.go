package clientplay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/textesc"
)

// The caps on a client's output streams in each scenario of a play: what
// comes past a cap is counted, not kept.
const (
	// LineMax is the longest line of a program's stdout or stderr that is
	// kept; the rest of a longer line is read in pieces, counted and
	// dropped.
	LineMax = 1 << 20
	// DefaultStreamMax caps each output stream of each scenario when
	// Options.MaxOutput is 0.
	DefaultStreamMax = 8 << 20
	// StreamLinesMax caps the lines kept of each stream of a client in each
	// scenario.
	StreamLinesMax = 10_000
)

// streamLine is one line a client wrote to a stream, as far as it was
// kept: its text without the line end, its size in bytes (line end
// included), how many bytes of it were cut (over the line cap), and
// whether it came past the stream's cap and so was counted, not kept.
type streamLine struct {
	text    string
	size    int64
	cut     int64
	dropped bool
}

// shown is the line as a transcript shows it: the kept text, up to
// event.TextMax with its marker, which says how many bytes of the line
// were not kept and why.
func (l streamLine) shown(s *stream) string {
	text, cut := l.text, l.cut
	if room := event.TextMax - 160; len(text) > room {
		keep := room
		for keep > 0 && !utf8.RuneStart(text[keep]) {
			keep--
		}
		cut += int64(len(text) - keep)
		text = text[:keep]
	}
	if cut > 0 {
		return text + fmt.Sprintf("… [cut: %d more bytes of this line not kept: a line is kept up to %d bytes, %d in a transcript]", cut, s.lineMax, event.TextMax)
	}
	return text
}

// stream reads one of a client's output streams within its caps: at most
// max bytes and StreamLinesMax lines kept, each line at most lineMax
// bytes. Lines longer than that are read in pieces of the reader's
// buffer, never whole; lines past the stream's cap are counted.
type stream struct {
	name     string
	max      int64
	lineMax  int
	kept     int64
	lines    int
	dropped  int   // lines past the stream's cap
	dropSize int64 // their bytes
	clipped  int   // lines cut at lineMax
}

func newStream(name string, max int64) *stream {
	if max <= 0 {
		max = DefaultStreamMax
	}
	return &stream{name: name, max: max, lineMax: LineMax}
}

// read reads r to its end, handing each line to each in order.
func (s *stream) read(r io.Reader, each func(streamLine)) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		limit := 0
		if s.lines < StreamLinesMax {
			limit = int(min(int64(s.lineMax), s.max-s.kept))
		}
		var b []byte
		var size int64
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			size += int64(len(frag))
			if len(b) < limit {
				b = append(b, frag[:min(len(frag), limit-len(b))]...)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if size > 0 {
			s.take(b, size, err == nil, limit, each)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				io.Copy(io.Discard, r)
			}
			return
		}
	}
}

// take accounts for one line of size bytes (ended: with its newline) of
// which b was kept.
func (s *stream) take(b []byte, size int64, ended bool, limit int, each func(streamLine)) {
	if limit <= 0 {
		s.dropped++
		s.dropSize += size
		each(streamLine{size: size, dropped: true})
		return
	}
	body := size // the line without its end
	if ended {
		body--
	}
	if int64(len(b)) > body {
		b = b[:body] // the newline was kept
	}
	if int64(len(b)) == body && len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
		body--
	}
	l := streamLine{text: string(b), size: size, cut: body - int64(len(b))}
	if l.cut > 0 {
		s.clipped++
	}
	s.kept += int64(len(b))
	s.lines++
	each(l)
}

// summary says what the stream's caps left out, or "" when nothing was.
func (s *stream) summary() string {
	if s.dropped == 0 {
		return ""
	}
	return fmt.Sprintf("the client's %s went past its cap (%d bytes or %d lines a scenario): %s, %s, %s counted, not kept",
		s.name, s.max, StreamLinesMax, textesc.CountOf(s.dropped, "more line", "more lines"), textesc.CountOf(int(s.dropSize), "byte", "bytes"), textesc.Pick(s.dropped, "was", "were"))
}

// addExtra keeps a line that came beyond one per command, or counts it
// when it came past the stdout cap.
func (r *Record) addExtra(a *Answer) {
	if a.Dropped {
		r.ExtraCut++
		return
	}
	r.Extra = append(r.Extra, a.Text)
}

// eventCap bounds the events one scenario of a client run keeps, as a
// graded result's transcript is bounded: each text cut at event.TextMax,
// and past event.ScenarioTextMax bytes or event.ScenarioEventsMax events
// the rest of what the client and the servers wrote counted, not kept.
type eventCap struct {
	bytes, events int
	dropped       int
	droppedBytes  int64
}

func newEventCap() *eventCap { return &eventCap{} }

// take cuts ev's text to the cap and reports whether ev is kept.
func (c *eventCap) take(ev *event.Event) bool {
	// Sizes are of the text a transcript shows (see event.Bound), as
	// they are counted there.
	shown := len(ev.TranscriptText())
	size := min(shown, event.TextMax)
	// The grader's own events (a command sent, stdin closed, the exit, a
	// note) are few and always kept; what the client and the servers wrote
	// is kept until the cap.
	own := !ev.OfRig() && (ev.Kind == event.Send || ev.Kind == event.Close || ev.Kind == event.Exit || ev.Kind == event.Note)
	if !own && (c.dropped > 0 || c.events >= event.ScenarioEventsMax || c.bytes+size > event.ScenarioTextMax) {
		c.dropped++
		c.droppedBytes += int64(shown)
		return false
	}
	if shown > event.TextMax {
		ev.Text = event.CutText(ev.Text, event.TextMax-(shown-len(ev.Text)), fmt.Sprintf("an event's text is kept up to %d bytes", event.TextMax))
		shown = len(ev.TranscriptText())
	}
	c.bytes += shown
	c.events++
	return true
}

// summary says what the cap left out of scenario, or "".
func (c *eventCap) summary(scenario string) string {
	if c.dropped == 0 {
		return ""
	}
	return fmt.Sprintf("… [cut: %s of scenario %s, %s of text, %s counted, not kept: "+
		"a transcript keeps up to %d bytes and %d events a scenario]", textesc.CountOf(c.dropped, "more event", "more events"), scenario, textesc.CountOf(int(c.droppedBytes), "byte", "bytes"), textesc.Pick(c.dropped, "was", "were"), event.ScenarioTextMax, event.ScenarioEventsMax)
}
