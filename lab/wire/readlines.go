package wire

import (
	"errors"
	"io"
	"iter"
)

// ErrOverLimit ends Lines when more than its bound was read: the rest of
// the input is left unread.
var ErrOverLimit = errors.New("the input went on past the bytes it may use")

// Lines reads r with a Framer made with opts and yields each line, or the
// *LineTooLongError of a line dropped, then the error that ended the input
// (io.EOF at its end), once; a line's slice is valid only until the next.
// When max > 0, it stops as soon as the framer has read more than max
// bytes, yielding ErrOverLimit instead of whatever it read last: the
// framer reads ahead, so the lines of the read that passed the bound are
// not yielded either. Stopping the loop early leaves the rest unread.
func Lines(r io.Reader, max int64, opts ...FramerOption) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		var lr *io.LimitedReader
		if max > 0 {
			lr = &io.LimitedReader{R: r, N: max + 1}
			r = lr
		}
		f := NewFramer(r, opts...)
		for {
			b, err := f.Next()
			if lr != nil && lr.N <= 0 {
				yield(nil, ErrOverLimit)
				return
			}
			if !yield(b, err) || err != nil && !errors.Is(err, ErrLineTooLong) {
				return
			}
		}
	}
}
