package clientplay

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/event"
)

// TestClientStreamCaps reads a flood the way the player reads a client's
// stdout: a line over the line cap is kept up to it and says how much was
// cut; past the stream's cap lines are counted, not kept.
func TestClientStreamCaps(t *testing.T) {
	s := newStream("stdout", 3<<20)
	s.lineMax = 1 << 20
	big := strings.Repeat("x", 4<<20)
	in := big + "\n" + "{\"ok\":true}\r\n" + big + "\n" + big + "\n" + big + "\n" + big + "\n" + "tail"
	var got []streamLine
	s.read(strings.NewReader(in), func(l streamLine) {
		if !l.dropped {
			l.text = fmt.Sprintf("%d bytes", len(l.text))
		}
		got = append(got, l)
	})
	want := []streamLine{
		{text: "1048576 bytes", size: 4<<20 + 1, cut: 4<<20 - 1<<20},
		{text: "11 bytes", size: 13},
		{text: "1048576 bytes", size: 4<<20 + 1, cut: 4<<20 - 1<<20},
		{size: 4<<20 + 1}, // set below
		{size: 4<<20 + 1, dropped: true},
		{size: 4<<20 + 1, dropped: true},
		{size: 4, dropped: true},
	}
	// The third long line gets what is left of the stream's cap.
	want[3].text = fmt.Sprintf("%d bytes", 3<<20-2<<20-11)
	want[3].cut = 4<<20 - int64(3<<20-2<<20-11)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("lines\n got %+v\nwant %+v", got, want)
	}
	if s.kept != 3<<20 {
		t.Errorf("kept %d bytes, want the stream's cap %d", s.kept, 3<<20)
	}
	wantSum := fmt.Sprintf("the client's stdout went past its cap (%d bytes or %d lines a scenario): 3 more lines, %d bytes, were counted, not kept", 3<<20, StreamLinesMax, 2*(4<<20+1)+4)
	if s.summary() != wantSum {
		t.Errorf("summary %q, want %q", s.summary(), wantSum)
	}
	l := got[0]
	l.text = "abc"
	if sh := l.shown(s); sh != "abc… [cut: 3145728 more bytes of this line not kept: a line is kept up to 1048576 bytes, 65536 in a transcript]" {
		t.Errorf("shown %q", sh)
	}
	l.text = strings.Repeat("w", 1<<20)
	if sh := l.shown(s); len(sh) > event.TextMax || !strings.HasSuffix(sh, fmt.Sprintf("… [cut: %d more bytes of this line not kept: a line is kept up to 1048576 bytes, 65536 in a transcript]", 4<<20-(event.TextMax-160))) {
		t.Errorf("shown %q", sh)
	}
}

// TestClientStreamLineCount: empty lines count against the lines a stream
// keeps.
func TestClientStreamLineCount(t *testing.T) {
	s := newStream("stderr", 0)
	kept, dropped := 0, 0
	s.read(strings.NewReader(strings.Repeat("\n", StreamLinesMax+5)), func(l streamLine) {
		if l.dropped {
			dropped++
		} else {
			kept++
		}
	})
	if kept != StreamLinesMax || dropped != 5 || s.dropSize != 5 {
		t.Errorf("kept %d, dropped %d (%d bytes); want %d and 5 (5 bytes)", kept, dropped, s.dropSize, StreamLinesMax)
	}
}

// TestClientStreamReadsInPieces: a line is never read whole: the reader
// sees only reads of its buffer's size.
func TestClientStreamReadsInPieces(t *testing.T) {
	r := &maxRead{r: strings.NewReader(strings.Repeat("y", 8<<20) + "\n")}
	s := newStream("stdout", 0)
	n := 0
	s.read(r, func(streamLine) { n++ })
	if n != 1 || r.largest > 64<<10 {
		t.Errorf("%d lines, largest read %d bytes; want 1 line read in pieces of at most 64 KiB", n, r.largest)
	}
}

type maxRead struct {
	r       io.Reader
	largest int
}

func (m *maxRead) Read(p []byte) (int, error) {
	m.largest = max(m.largest, len(p))
	return m.r.Read(p)
}
