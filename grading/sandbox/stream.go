package sandbox

import (
	"io"
	"sync"
)

// stream carries one output stream of a container from the demultiplexer
// to the grader. Unlike io.Pipe it holds up to max bytes, so a grader that
// reads stdout and stderr at different paces does not stall the other
// stream; past max the writer waits. Once dropping is set (the container
// is being stopped) or the reader is gone, writes are dropped instead, so
// the engine can always deliver the end of a container's output and report
// its exit.
type stream struct {
	mu       sync.Mutex
	cond     *sync.Cond
	buf      []byte
	max      int
	closed   bool  // no more writes will come
	err      error // the writer's error, given to the reader after the data
	dropping bool
	gone     bool // the reader closed its end
}

func newStream(max int) *stream {
	s := &stream{max: max}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Write appends p, waiting while the buffer is full.
func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) >= s.max && !s.dropping && !s.gone {
		s.cond.Wait()
	}
	if !s.dropping && !s.gone {
		s.buf = append(s.buf, p...)
		s.cond.Broadcast()
	}
	return len(p), nil
}

// closeWrite ends the stream; the reader gets err (io.EOF when nil) once
// it has read everything.
func (s *stream) closeWrite(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		err = io.EOF
	}
	s.closed, s.err = true, err
	s.cond.Broadcast()
}

// drop makes every later write vanish and frees a writer that waits.
func (s *stream) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropping = true
	s.cond.Broadcast()
}

// Read reads what was written, waiting for more until the stream ends.
func (s *stream) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) == 0 && !s.closed && !s.gone {
		s.cond.Wait()
	}
	if s.gone {
		return 0, io.ErrClosedPipe
	}
	if len(s.buf) == 0 {
		return 0, s.err
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if len(s.buf) == 0 {
		s.buf = nil
	}
	s.cond.Broadcast()
	return n, nil
}

// Close is the reader's end: what is left is dropped, and so is every
// later write.
func (s *stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone, s.buf = true, nil
	s.cond.Broadcast()
	return nil
}
