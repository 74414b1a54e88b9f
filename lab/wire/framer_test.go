package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// chunks is a reader that hands out the given chunks, one per Read, the way
// a pipe does when a writer writes them with pauses between.
type chunks struct{ parts []string }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if c.parts[0] == "" {
		c.parts = c.parts[1:]
	}
	return n, nil
}

// readAll returns every line and error the framer gives until EOF.
func readAll(t *testing.T, f *Framer) []string {
	t.Helper()
	var out []string
	for i := 0; i < 10000; i++ {
		line, err := f.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			out = append(out, "ERR "+err.Error())
			if !errors.Is(err, ErrLineTooLong) {
				return out
			}
			continue
		}
		out = append(out, string(line))
	}
	t.Fatal("framer never reached EOF")
	return nil
}

func TestFramer(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		max    int
		want   []string
	}{
		{"seed 003 worked example", []string{"{\"id\":1}\n{\"id", "\":2}\n", "{\"i"}, 0,
			[]string{`{"id":1}`, `{"id":2}`, `{"i`}},
		{"half a line kept across chunks", []string{"ab", "cd", "ef\n"}, 0, []string{"abcdef"}},
		{"many lines in one chunk", []string{"a\nb\nc\n"}, 0, []string{"a", "b", "c"}},
		{"crlf endings", []string{"a\r\nb\r", "\n"}, 0, []string{"a", "b"}},
		{"blank lines skipped", []string{"\n\r\n  \t\na\n\n"}, 0, []string{"a"}},
		{"last line without newline", []string{"a\nlast"}, 0, []string{"a", "last"}},
		{"empty input", nil, 0, nil},
		{"line at the limit", []string{"12345\n"}, 5, []string{"12345"}},
		{"line at the limit with crlf", []string{"12345\r\n"}, 5, []string{"12345"}},
		{"over the limit, then on", []string{"123456\nok\n"}, 5,
			[]string{"ERR line of 6 bytes is longer than the 5-byte limit; it was dropped", "ok"}},
		{"over the limit across chunks", []string{"12", "345", "678", "9\nok\n"}, 5,
			[]string{"ERR line of 9 bytes is longer than the 5-byte limit; it was dropped", "ok"}},
		{"over the limit at the end", []string{"ok\n123456789"}, 5,
			[]string{"ok", "ERR line longer than the 5-byte limit, and the input ended before its newline"}},
		{"two long lines, one error each", []string{"1234567\n1234567\nx\n"}, 5,
			[]string{"ERR line of 7 bytes is longer than the 5-byte limit; it was dropped",
				"ERR line of 7 bytes is longer than the 5-byte limit; it was dropped", "x"}},
		{"long line over a big buffer", []string{strings.Repeat("x", 200000) + "\nok\n"}, 100000,
			[]string{"ERR line of 200000 bytes is longer than the 100000-byte limit; it was dropped", "ok"}},
		{"long line that fits", []string{strings.Repeat("y", 150000) + "\n"}, 0, []string{strings.Repeat("y", 150000)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, NewFramer(&chunks{parts: append([]string(nil), tt.chunks...)}, MaxLine(tt.max)))
			if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
				t.Errorf("lines:\n got %q\nwant %q", short(got), short(tt.want))
			}
			// The same bytes one at a time must give the same lines.
			one := NewFramer(iotest.OneByteReader(strings.NewReader(strings.Join(tt.chunks, ""))), MaxLine(tt.max))
			if got1 := readAll(t, one); strings.Join(got1, "\x00") != strings.Join(tt.want, "\x00") {
				t.Errorf("one byte per read:\n got %q\nwant %q", short(got1), short(tt.want))
			}
		})
	}
}

func short(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > 60 {
			l = l[:60] + "..."
		}
		out[i] = l
	}
	return out
}

func TestFramerKeepBlankLines(t *testing.T) {
	got := readAll(t, NewFramer(strings.NewReader("a\n\n \nb\n"), KeepBlankLines()))
	want := []string{"a", "", " ", "b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFramerReadError(t *testing.T) {
	boom := errors.New("boom")
	f := NewFramer(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	if l, err := f.Next(); err != nil || string(l) != "a" {
		t.Fatalf("first line: %q, %v", l, err)
	}
	if l, err := f.Next(); err != nil || string(l) != "b" {
		t.Fatalf("second line: %q, %v (the last whole line comes before the error)", l, err)
	}
	if _, err := f.Next(); !errors.Is(err, boom) {
		t.Fatalf("want the read error, got %v", err)
	}
}

// FuzzFramer checks that the framer hands back exactly the non-blank lines
// of any input, in order, however it is chunked, and never a line over its
// limit.
func FuzzFramer(f *testing.F) {
	f.Add([]byte("{\"id\":1}\n{\"id\":2}\n"), uint8(3), uint8(64))
	f.Add([]byte("a\r\n\r\n b \nlast"), uint8(1), uint8(4))
	f.Add([]byte("\xff\xfe\n\x00\n"), uint8(2), uint8(1))
	f.Add([]byte(strings.Repeat("z", 300)+"\nok"), uint8(7), uint8(100))
	f.Fuzz(func(t *testing.T, data []byte, step uint8, limit uint8) {
		max := int(limit) + 1
		var parts []string
		s := int(step)%17 + 1
		for i := 0; i < len(data); i += s {
			parts = append(parts, string(data[i:min(i+s, len(data))]))
		}
		fr := NewFramer(&chunks{parts: parts}, MaxLine(max))
		var got []string
		for {
			line, err := fr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if errors.Is(err, ErrLineTooLong) {
				got = append(got, "\x00TOO LONG")
				continue
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(line) > max {
				t.Fatalf("line of %d bytes over the %d limit", len(line), max)
			}
			got = append(got, string(line))
		}
		// The model: split on \n, drop one \r at each end, skip blanks.
		var want []string
		for _, l := range strings.Split(string(data), "\n") {
			l = strings.TrimSuffix(l, "\r")
			if strings.TrimLeft(l, " \t\r") == "" {
				continue
			}
			if len(l) > max {
				want = append(want, "\x00TOO LONG")
				continue
			}
			want = append(want, l)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	})
}

// BenchmarkFramerVsBufio reads the same 64 MiB of lesson-like lines with the
// framer and with a plain bufio.Scanner line split, in the same run, and
// reports the framer's throughput as a ratio of the scanner's (goal: >= 0.8).
func BenchmarkFramerVsBufio(b *testing.B) {
	line := `{"jsonrpc":"2.0","id":12345,"method":"wait","params":{"ms":80}}` + "\n"
	data := bytes.Repeat([]byte(line), (64<<20)/len(line))
	// once returns the throughput of one pass, in bytes per nanosecond.
	once := func(read func(io.Reader) int) float64 {
		start := nowNanos()
		if read(bytes.NewReader(data)) == 0 {
			b.Fatal("read no lines")
		}
		return float64(len(data)) / float64(nowNanos()-start)
	}
	framer := func(r io.Reader) int {
		f := NewFramer(r)
		n := 0
		for {
			if _, err := f.Next(); err != nil {
				return n
			}
			n++
		}
	}
	scanner := func(r io.Reader) int {
		s := bufio.NewScanner(r)
		s.Buffer(make([]byte, 64<<10), DefaultMaxLine)
		n := 0
		for s.Scan() {
			n++
		}
		return n
	}
	for i := 0; i < b.N; i++ {
		// Alternate the two, best of five each, so that load from other
		// processes hits both alike.
		var fr, sc float64
		for round := 0; round < 5; round++ {
			fr = max(fr, once(framer))
			sc = max(sc, once(scanner))
		}
		b.ReportMetric(fr*1e9/(1<<20), "framer-MiB/s")
		b.ReportMetric(sc*1e9/(1<<20), "bufio-MiB/s")
		b.ReportMetric(fr/sc, "ratio")
	}
}
