package rig

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// frameCap is the longest frame readFrames takes: the relay's buffer.
const frameCap = 64 << 10

// chunkReader returns at most size bytes a read (all it has when size is
// 0), and counts what it handed out.
type chunkReader struct {
	data []byte
	size int
	read int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.read == len(c.data) {
		return 0, io.EOF
	}
	if c.size > 0 && len(p) > c.size {
		p = p[:c.size]
	}
	n := copy(p, c.data[c.read:])
	c.read += n
	return n, nil
}

// writeLog keeps every write.
type writeLog struct {
	bytes.Buffer
	longest int
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.longest = max(w.longest, len(p))
	return w.Buffer.Write(p)
}

// framesModel is what readFrames should make of data: the bytes of the
// frames before the first bad, empty or incomplete one, how many input
// bytes that takes, and the error it ends with.
func framesModel(data []byte) (out []byte, used int, err error) {
	for {
		rest := data[used:]
		if len(rest) == 0 {
			return out, used, io.EOF
		}
		if len(rest) < 4 {
			return out, len(data), io.ErrUnexpectedEOF
		}
		n := int(binary.BigEndian.Uint32(rest))
		used += 4
		switch {
		case n == 0:
			return out, used, errStdinEnded
		case n > frameCap:
			return out, used, fmt.Errorf("a frame of %d bytes is longer than a relay sends", n)
		case len(rest)-4 == 0:
			return out, used, io.EOF
		case len(rest)-4 < n:
			return out, len(data), io.ErrUnexpectedEOF
		}
		out = append(out, rest[4:4+n]...)
		used += n
	}
}

func frame(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// Whatever bytes reach the rig's end of a relay's socket, readFrames never
// panics, never writes more than a frame at once, never reads past the
// frame it stops at, and passes on exactly the frames before it.
func FuzzReadFrames(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add(cat(frame("{\"jsonrpc\":\"2.0\"}\n"), frame("x"), []byte{0, 0, 0, 0}, frame("after the end")), uint8(0))
	f.Add(cat(frame("split "), frame("across reads\n")), uint8(3))
	f.Add(cat(frame("ok"), []byte{0, 1, 0, 1}, []byte("too long")), uint8(1))
	f.Add(cat(frame("ok"), []byte{0xff, 0xff, 0xff, 0xff}), uint8(0))
	f.Add(cat(frame("ok"), []byte{0, 0, 0}), uint8(2))
	f.Add(cat(frame("ok"), []byte{0, 0, 0, 9}, []byte("half")), uint8(0))
	f.Add(cat([]byte{0, 1, 0, 0}, bytes.Repeat([]byte("y"), frameCap), frame("z")), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		r := &chunkReader{data: data, size: int(size)}
		var w writeLog
		err := readFrames(r, &w)
		want, used, wantErr := framesModel(data)
		if !bytes.Equal(w.Bytes(), want) {
			t.Errorf("passed on %q, want %q", w.Bytes(), want)
		}
		if err == nil || err.Error() != wantErr.Error() || errors.Is(wantErr, errStdinEnded) != errors.Is(err, errStdinEnded) {
			t.Errorf("error %v, want %v", err, wantErr)
		}
		if w.longest > frameCap {
			t.Errorf("a write of %d bytes, more than a frame", w.longest)
		}
		if r.read != used {
			t.Errorf("read %d bytes of %d, want %d", r.read, len(data), used)
		}
	})
}

// A header that claims a frame of 4 GiB is refused before anything is
// read or allocated for it.
func TestReadFramesHugeHeaderAllocatesNothing(t *testing.T) {
	data := cat(frame("ok"), []byte{0xff, 0xff, 0xff, 0xff}, bytes.Repeat([]byte("z"), 100))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var w writeLog
	err := readFrames(&chunkReader{data: data}, &w)
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != "a frame of 4294967295 bytes is longer than a relay sends" {
		t.Errorf("error %v", err)
	}
	if w.String() != "ok" {
		t.Errorf("passed on %q", w.String())
	}
	// The frame buffer, the write log and change; never the 4 GiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("readFrames allocated %d bytes", grew)
	}
}

// splitWrites writes data to w in chunks whose sizes come from cuts.
func splitWrites(t *testing.T, w io.Writer, data, cuts []byte) {
	t.Helper()
	for len(data) > 0 {
		n := len(data)
		if len(cuts) > 0 {
			n = min(n, int(cuts[0])%40+1)
			cuts = cuts[1:]
		}
		if k, err := w.Write(data[:n]); k != n || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", n, k, err)
		}
		data = data[n:]
	}
}

const cutMark = " [cut: the line goes on]"

// However a stream is split into writes, lineTap reports exactly its
// lines (the last one, with no newline, when flushed), passes on every
// byte when it holds nothing, and when it holds lines (here, the ones with
// an H) passes on exactly the others. A line longer than max is reported
// cut, and still passed on.
func FuzzLineTap(f *testing.F) {
	f.Add([]byte("one\ntwo\n\nthree"), []byte{0, 1, 2}, false, uint16(0))
	f.Add([]byte(`{"method":"tools/call"}`+"\nHeld\nkept\n"), []byte{5, 5, 5}, true, uint16(0))
	f.Add([]byte("short\na line much longer than max\nend H"), []byte{2, 39}, true, uint16(8))
	f.Add([]byte("\n\n\n"), []byte{}, true, uint16(1))
	f.Add([]byte("no newline at all, longer than max"), []byte{3, 3, 3, 3, 3, 3, 3}, false, uint16(4))
	f.Fuzz(func(t *testing.T, data, cuts []byte, holdH bool, maxLen uint16) {
		var out bytes.Buffer
		var emitted []string
		tap := &lineTap{w: &out, emit: func(l string) { emitted = append(emitted, l) }, max: int(maxLen)}
		if holdH {
			tap.hold = func(line []byte) bool { return bytes.IndexByte(line, 'H') >= 0 }
		}
		splitWrites(t, tap, data, cuts)
		tap.flush()

		lines := bytes.Split(data, []byte("\n"))
		tail := lines[len(lines)-1]
		lines = lines[:len(lines)-1]
		long := -1 // the first line longer than max
		for i, l := range append(lines, tail) {
			if maxLen > 0 && len(l) > int(maxLen) {
				long = i
				break
			}
		}
		if !holdH && !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("passed on %q, want the input %q", out.Bytes(), data)
		}
		for _, e := range emitted {
			if strings.HasSuffix(e, cutMark) && len(e) != int(maxLen)+len(cutMark) {
				t.Errorf("a cut line of %d bytes, want %d before the mark: %q", len(e)-len(cutMark), maxLen, e)
			}
		}
		if long >= 0 {
			// Up to the first long line, the lines are reported whole.
			for i := 0; i < long && i < len(emitted); i++ {
				if emitted[i] != string(lines[i]) {
					t.Fatalf("line %d reported as %q, want %q", i, emitted[i], lines[i])
				}
			}
			return
		}
		var want []string
		var passed []byte
		for _, l := range lines {
			want = append(want, string(l))
			if !holdH || bytes.IndexByte(l, 'H') < 0 {
				passed = append(append(passed, l...), '\n')
			}
		}
		if len(tail) > 0 {
			want = append(want, string(tail))
			if !holdH || bytes.IndexByte(tail, 'H') < 0 {
				passed = append(passed, tail...)
			}
		}
		if strings.Join(emitted, "\x00") != strings.Join(want, "\x00") || len(emitted) != len(want) {
			t.Errorf("reported %q, want %q", emitted, want)
		}
		if !bytes.Equal(out.Bytes(), passed) {
			t.Errorf("passed on %q, want %q", out.Bytes(), passed)
		}
	})
}
