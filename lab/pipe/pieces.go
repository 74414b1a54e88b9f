// Package pipe paces writes to a pipe by what its reader has taken: a long
// message goes out in pieces, each held back until the reader has drained
// the one before, so that every read the reader makes ends inside the
// message. The lab's stdio servers use it to make a client that trusts one
// read to hold one message fail every time instead of by luck.
package pipe

import (
	"io"
	"os"
	"time"

	"github.com/mcplab/mcplab/lab/proc"
)

// PieceSize is the largest piece Pieces writes at once: one page, the
// smallest capacity a Linux pipe can have.
const PieceSize = 4096

// Pieces passes writes on to W in pieces of at most PieceSize bytes. Before
// each piece after the first it waits until the reader has drained the
// pipe (when W is a pipe), at most MaxWait, or else for Pause.
type Pieces struct {
	W io.Writer
	// Pause separates pieces when W is not a pipe; 0 means 20ms.
	Pause time.Duration
	// MaxWait bounds the wait for a reader that does not read; 0 means a
	// second.
	MaxWait time.Duration

	wrote bool // a piece went out before: the next one waits for it
}

// Write writes p in pieces.
func (w *Pieces) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		n := min(len(p), PieceSize)
		if written > 0 {
			w.wait()
		} else if w.wrote {
			w.drained()
		}
		w.wrote = true
		m, err := w.W.Write(p[:n])
		written += m
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}

// wait holds the next piece back until the reader has taken the last.
func (w *Pieces) wait() {
	if w.drained() {
		return
	}
	pause := w.Pause
	if pause <= 0 {
		pause = 20 * time.Millisecond
	}
	time.Sleep(pause)
}

// drained waits until the pipe W is empty, and reports whether W is a
// pipe whose backlog it can see.
func (w *Pieces) drained() bool {
	if f, ok := w.W.(*os.File); ok {
		if _, err := proc.PipeBacklog(f); err == nil {
			wait := w.MaxWait
			if wait <= 0 {
				wait = time.Second
			}
			deadline := time.Now().Add(wait)
			for time.Now().Before(deadline) {
				if n, err := proc.PipeBacklog(f); err != nil || n == 0 {
					return true
				}
				time.Sleep(time.Millisecond)
			}
			return true
		}
	}
	return false
}
