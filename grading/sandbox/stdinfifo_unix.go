//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/mcplab/mcplab/lab/proc"
)

// stdinFIFO is the named pipe a container's program reads as its stdin. The
// grader writes into it directly, on the same kernel, so it can tell to the
// byte what the program has not read yet (proc.PipeBacklog), as it can for a
// local pipe. Through the engine's attach stream it could not: a chunk
// written there can wait in the engine and the container's shim, and two
// chunks the grader wrote apart can reach the program as one read, which
// hides a framing mistake on a loaded machine.
//
// The pipe sits alone in a folder of the grader's, mode 0711, so no program
// can swap it for something else; the pipe belongs to the container's user,
// mode 0400: it may only read it. The grader opens its end for writing only,
// and that open completes when the program's shell opens the other end, so
// the program sees end of input exactly when the grader closes its end (a
// read-write end would keep it from ever seeing it, and closing before the
// program had opened would leave its open waiting for a writer for good).
type stdinFIFO struct {
	dir, path string
	opened    chan struct{} // closed once the open below has returned

	mu      sync.Mutex
	w       *os.File
	openErr error
	closed  bool // Close was called
}

// newStdinFIFO makes the pipe for a program run as uid:gid and starts
// opening the grader's end, which completes when the program opens its own.
func newStdinFIFO(uid, gid int) (*stdinFIFO, error) {
	dir, err := os.MkdirTemp("", "mcplab-stdin-")
	if err != nil {
		return nil, fmt.Errorf("making the folder of the program's stdin: %w", err)
	}
	f := &stdinFIFO{dir: dir, path: filepath.Join(dir, "stdin"), opened: make(chan struct{})}
	fail := func(what string, err error) (*stdinFIFO, error) {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		return fail("opening the folder of the program's stdin to its user", err)
	}
	if err := syscall.Mkfifo(f.path, 0o400); err != nil {
		return fail("making the program's stdin pipe", err)
	}
	if err := os.Lchown(f.path, uid, gid); err != nil && os.Geteuid() == 0 {
		return fail("giving the program's stdin pipe to its user", err)
	}
	go f.open()
	return f, nil
}

// open opens the grader's end, waiting for the program to open its own (or
// for abandon to stand in for it).
func (f *stdinFIFO) open() {
	w, err := os.OpenFile(f.path, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	f.mu.Lock()
	f.w, f.openErr = w, err
	if err == nil && f.closed {
		_ = w.Close()
	}
	f.mu.Unlock()
	close(f.opened)
}

// Write waits until the program has opened its end, then writes.
func (f *stdinFIFO) Write(b []byte) (int, error) {
	<-f.opened
	if f.openErr != nil {
		return 0, fmt.Errorf("opening the program's stdin: %w", f.openErr)
	}
	return f.w.Write(b)
}

// Close is end of input: it closes the grader's end now, or as soon as it
// is open.
func (f *stdinFIFO) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	if f.w != nil {
		return f.w.Close()
	}
	return nil
}

// Backlog says how many bytes written the program has not read yet: none
// before its end is open, since no write has gone through.
func (f *stdinFIFO) Backlog() (int, error) {
	select {
	case <-f.opened:
	default:
		return 0, nil
	}
	if f.openErr != nil {
		return 0, f.openErr
	}
	n, err := proc.PipeBacklog(f.w)
	if errors.Is(err, os.ErrClosed) {
		return 0, nil
	}
	return n, err
}

// remove ends the grader's side once the program is gone: if the program
// never opened its end, the grader opens one itself so its own open
// returns; then it closes its end and deletes the pipe and its folder.
func (f *stdinFIFO) remove() {
	select {
	case <-f.opened:
	default:
		if r, err := os.OpenFile(f.path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0); err == nil {
			<-f.opened
			_ = r.Close()
		}
	}
	_ = f.Close()
	_ = os.RemoveAll(f.dir)
}
