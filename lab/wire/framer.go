package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest line a Framer hands back unless told
// otherwise: 16 MiB, the limit the official Go SDK uses too.
const DefaultMaxLine = 16 << 20

// LineTooLongError reports a line that was longer than the framer's limit.
// The framer has already thrown the line away, up to and including its
// newline, and the next call to Next carries on with the line after it.
type LineTooLongError struct {
	Limit int // the framer's limit in bytes
	// Dropped counts the bytes that were thrown away (without the newline).
	// It is -1 when the input ended before the line did.
	Dropped int64
}

func (e *LineTooLongError) Error() string {
	if e.Dropped < 0 {
		return fmt.Sprintf("line longer than the %d-byte limit, and the input ended before its newline", e.Limit)
	}
	return fmt.Sprintf("line of %d bytes is longer than the %d-byte limit; it was dropped", e.Dropped, e.Limit)
}

// ErrLineTooLong matches every *LineTooLongError with errors.Is.
var ErrLineTooLong = errors.New("line too long")

// Is lets errors.Is(err, ErrLineTooLong) find a LineTooLongError.
func (e *LineTooLongError) Is(target error) bool { return target == ErrLineTooLong }

// A Framer cuts a byte stream into lines, one message to a line, however the
// stream was chunked: it keeps half a line until the rest arrives, cuts many
// lines out of one chunk, accepts "\r\n" endings, skips blank lines and hands
// back a last line that has no newline when the input ends. Its memory stays
// bounded by the line limit whatever arrives.
//
// A Framer is not safe for concurrent use.
type Framer struct {
	r        *bufio.Reader
	max      int
	keep     bool   // hand back blank lines too
	line     []byte // the line being put together from several buffer reads
	bad      error  // a read error to report once the last line is out
	finished bool
}

// FramerOption changes how a Framer works.
type FramerOption func(*Framer)

// MaxLine sets the longest line, in bytes without its ending, that the framer
// hands back. n <= 0 means DefaultMaxLine.
func MaxLine(n int) FramerOption {
	return func(f *Framer) {
		if n > 0 {
			f.max = n
		}
	}
}

// KeepBlankLines makes the framer hand back blank lines too, as a client
// that checks a server's output needs to.
func KeepBlankLines() FramerOption {
	return func(f *Framer) { f.keep = true }
}

// NewFramer returns a Framer that reads lines from r.
func NewFramer(r io.Reader, opts ...FramerOption) *Framer {
	f := &Framer{max: DefaultMaxLine}
	for _, o := range opts {
		o(f)
	}
	size := 64 << 10
	if f.max < size {
		size = max(f.max+2, 16)
	}
	f.r = bufio.NewReaderSize(r, size)
	return f
}

// Next returns the next line without its "\n" or "\r\n" ending. The slice is
// valid only until the next call. At the end of the input Next returns
// io.EOF; a read error other than EOF is returned after the last whole line.
// A line longer than the limit gives one *LineTooLongError (the line is
// dropped) and the framer carries on with the next line.
func (f *Framer) Next() ([]byte, error) {
	for !f.finished {
		// The common case: a whole line sits in the buffer.
		chunk, err := f.r.ReadSlice('\n')
		if err == nil {
			line := trimCR(chunk[:len(chunk)-1])
			if len(line) > f.max {
				return nil, &LineTooLongError{Limit: f.max, Dropped: int64(len(chunk) - 1)}
			}
			if f.keep || !isBlank(line) {
				return line, nil
			}
			continue
		}
		line, err := f.rest(chunk, err)
		if err != nil {
			return nil, err
		}
		if line != nil && (f.keep || !isBlank(line)) {
			return line, nil
		}
	}
	if f.bad != nil {
		return nil, f.bad
	}
	return nil, io.EOF
}

// rest puts together a line that did not fit in the buffer, or the last one
// of the input. It returns nil and no error for an input that ended on a
// line boundary.
func (f *Framer) rest(chunk []byte, err error) ([]byte, error) {
	f.line = f.line[:0]
	for {
		switch {
		case err == nil:
			if total := len(f.line) + len(chunk); total-1 > f.max+1 {
				return nil, &LineTooLongError{Limit: f.max, Dropped: int64(total - 1)}
			}
			f.appendLine(chunk)
			line := trimCR(f.line[:len(f.line)-1])
			if len(line) > f.max {
				return nil, &LineTooLongError{Limit: f.max, Dropped: int64(len(f.line) - 1)}
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if len(f.line)+len(chunk) > f.max+1 { // +1: room for a '\r' before the '\n'
				return nil, f.discard(int64(len(f.line) + len(chunk)))
			}
			f.appendLine(chunk)
		default:
			f.finished = true
			if err != io.EOF {
				f.bad = fmt.Errorf("reading a line: %w", err)
			}
			if len(f.line)+len(chunk) > f.max+1 {
				return nil, &LineTooLongError{Limit: f.max, Dropped: -1}
			}
			f.appendLine(chunk)
			if len(f.line) == 0 {
				return nil, nil
			}
			if len(trimCR(f.line)) > f.max {
				return nil, &LineTooLongError{Limit: f.max, Dropped: -1}
			}
			return trimCR(f.line), nil
		}
		chunk, err = f.r.ReadSlice('\n')
	}
}

// appendLine adds b to the line being put together. It grows the buffer by
// doubling, never past the limit, so a long line costs few copies and the
// buffer never holds more than one line's worth.
func (f *Framer) appendLine(b []byte) {
	if need := len(f.line) + len(b); need > cap(f.line) {
		c := max(2*cap(f.line), need, 4096)
		c = min(c, max(f.max+2, need))
		grown := make([]byte, len(f.line), c)
		copy(grown, f.line)
		f.line = grown
	}
	f.line = append(f.line, b...)
}

// discard throws away the rest of an over-long line, up to and including its
// newline, without keeping it in memory.
func (f *Framer) discard(seen int64) error {
	f.line = f.line[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		seen += int64(len(chunk))
		switch {
		case err == nil:
			return &LineTooLongError{Limit: f.max, Dropped: seen - 1}
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			f.finished = true
			if err != io.EOF {
				f.bad = fmt.Errorf("reading a line: %w", err)
			}
			return &LineTooLongError{Limit: f.max, Dropped: -1}
		}
	}
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
