package proc

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
)

// ServeFunc is a server that runs inside the lab's own process: it reads
// stdin, writes stdout and stderr, and returns its exit status.
type ServeFunc func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int

// InProcess starts a ServeFunc on in-memory pipes. Tests use it to play
// scenarios against the reference server with fake time (testing/synctest).
type InProcess ServeFunc

// Start runs the function in a goroutine.
func (f InProcess) Start(ctx context.Context) (Process, error) {
	ctx, cancel := context.WithCancel(ctx)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	p := &memProcess{Ends: NewEnds(inW, outR, errR), cancel: cancel}
	go func() {
		code := f(ctx, inR, outW, errW)
		outW.Close()
		errW.Close()
		inR.Close()
		exit := Exit{Code: code}
		if p.killed.Load() {
			exit = Exit{Code: -1, Signal: "killed"}
		}
		p.End(exit)
	}()
	return p, nil
}

type memProcess struct {
	*Ends[*io.PipeWriter, *io.PipeReader]
	cancel context.CancelFunc
	once   sync.Once
	killed atomic.Bool
}

// Kill cancels the function's context and breaks its pipes.
func (p *memProcess) Kill() {
	p.once.Do(func() {
		select {
		case <-p.Done():
			return
		default:
		}
		p.killed.Store(true)
		p.cancel()
		p.In.CloseWithError(io.ErrClosedPipe)
		// A function blocked writing output that nobody reads any more
		// must see its writes fail, as a killed process would.
		p.Out.CloseWithError(io.ErrClosedPipe)
		p.ErrOut.CloseWithError(io.ErrClosedPipe)
	})
}

func (p *memProcess) CloseOutput() {
	p.Out.Close()
	p.ErrOut.Close()
}
