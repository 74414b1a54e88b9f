//go:build !unix

package sandbox

import "errors"

// stdinFIFO is the named pipe a container's program reads as its stdin;
// only Unix has them.
type stdinFIFO struct{ dir, path string }

// newStdinFIFO fails here: the container sandbox hands a program its stdin
// through a named pipe on the engine's own kernel, which needs Unix.
func newStdinFIFO(int, int) (*stdinFIFO, error) {
	return nil, errors.New("the container sandbox needs Linux (the program's stdin is a named pipe on the engine's kernel)")
}

func (f *stdinFIFO) Write([]byte) (int, error) { return 0, errors.ErrUnsupported }
func (f *stdinFIFO) Close() error              { return nil }
func (f *stdinFIFO) Backlog() (int, error)     { return 0, errors.ErrUnsupported }
func (f *stdinFIFO) remove()                   {}
