package contract

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mcplab/mcplab/lab/wire"
)

// Serve answers the commands of in on out, one line each, flushing every
// answer before it reads on, until in ends (nil) or ctx does (nil: the
// caller's deferred clean-up ends the servers). A line longer than
// wire.DefaultMaxLine gets an Error answer and the next line is read. The
// error is for input that cannot be read or an answer that cannot be
// written or encoded.
func Serve(ctx context.Context, h Host, in io.Reader, out io.Writer) error {
	w := bufio.NewWriter(out)
	lines := readLines(ctx, in)
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil
		case l = <-lines:
		}
		if errors.Is(l.err, io.EOF) {
			return nil
		}
		var answer any
		switch {
		case errors.Is(l.err, wire.ErrLineTooLong):
			answer = Error{l.err.Error()}
		case l.err != nil:
			return fmt.Errorf("reading commands: %w", l.err)
		default:
			answer = Answer(ctx, h, l.text)
		}
		b, err := wire.MarshalCompact(answer)
		if err != nil {
			return fmt.Errorf("encoding an answer: %w", err)
		}
		w.Write(append(b, '\n'))
		if err := w.Flush(); err != nil {
			return fmt.Errorf("writing an answer: %w", err)
		}
	}
}

// line is one command line read, or why none could be.
type line struct {
	text []byte
	err  error
}

// readLines reads r one line at a time in a goroutine of its own, so that
// a command waiting on a terminal never keeps an interrupt from working.
// It hands over the next line only when asked, ending with an error.
func readLines(ctx context.Context, r io.Reader) <-chan line {
	ch := make(chan line)
	go func() {
		for text, err := range wire.Lines(r, 0) {
			select {
			case ch <- line{text: append([]byte(nil), text...), err: err}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}
