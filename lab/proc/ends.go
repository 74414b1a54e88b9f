package proc

import (
	"io"
	"sync"
)

// Ends is what every kind of Process has in common: the grader's ends of
// the program's three streams (In, the program's stdin; Out and ErrOut,
// its stdout and stderr) and how the program ended. A Process type embeds
// a *Ends, made by NewEnds, for its Stdin, Stdout, Stderr and Wait, and
// calls End once it knows how the program ended; what is its own (Kill,
// how it learns of the end, a stdin backlog) it writes itself, reading the
// streams through the typed fields.
type Ends[W io.WriteCloser, R io.Reader] struct {
	// In is the program's stdin, Out its stdout and ErrOut its stderr.
	In     W
	Out    R
	ErrOut R

	done chan struct{}
	once sync.Once
	exit Exit
}

// NewEnds returns the Ends of a program that is running.
func NewEnds[W io.WriteCloser, R io.Reader](in W, out, errOut R) *Ends[W, R] {
	return &Ends[W, R]{In: in, Out: out, ErrOut: errOut, done: make(chan struct{})}
}

// Stdin is the program's input.
func (e *Ends[W, R]) Stdin() io.WriteCloser { return e.In }

// Stdout is the program's standard output.
func (e *Ends[W, R]) Stdout() io.Reader { return e.Out }

// Stderr is the program's standard error.
func (e *Ends[W, R]) Stderr() io.Reader { return e.ErrOut }

// Wait blocks until End has been called and returns the exit it recorded.
func (e *Ends[W, R]) Wait() Exit {
	<-e.done
	return e.exit
}

// Done is closed once End has been called.
func (e *Ends[W, R]) Done() <-chan struct{} { return e.done }

// End records how the program ended and wakes every Wait, now and later.
// Only the first call counts; a later one changes nothing.
func (e *Ends[W, R]) End(exit Exit) {
	e.once.Do(func() {
		e.exit = exit
		close(e.done)
	})
}
