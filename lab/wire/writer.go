package wire

import (
	"fmt"
	"io"
	"sync"
)

// LineWriter writes whole messages, one per line, from many goroutines at
// once: each message goes out in a single Write under a lock, so two answers
// never interleave on the wire.
type LineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLineWriter returns a LineWriter that writes to w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// WriteResponse encodes r and writes it as one line.
func (lw *LineWriter) WriteResponse(r *Response) error {
	b, err := r.Encode()
	if err != nil {
		return err
	}
	return lw.WriteLine(b)
}

// WriteLine writes b, which must end in a newline, in one Write.
func (lw *LineWriter) WriteLine(b []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if _, err := lw.w.Write(b); err != nil {
		return fmt.Errorf("writing a message: %w", err)
	}
	return nil
}
