package clientplay

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// outputClock records when the player last read bytes of the client's
// stdout or stderr, on the rig's clock: a client whose output is still
// being read is not a client that hangs. Bytes past a stream's cap are
// read too (and dropped, see stream.read), so they count as well.
type outputClock struct {
	since func() time.Duration
	last  atomic.Int64 // nanoseconds on the rig's clock; -1 until a read
}

func newOutputClock(since func() time.Duration) *outputClock {
	o := &outputClock{since: since}
	o.last.Store(-1)
	return o
}

// reader is r, noting the time of every read of it that gives bytes.
func (o *outputClock) reader(r io.Reader) io.Reader { return &clockedReader{r: r, o: o} }

// at is when bytes were last read; ok is false when none were.
func (o *outputClock) at() (last time.Duration, ok bool) {
	n := o.last.Load()
	return time.Duration(n), n >= 0
}

// clockedReader is one of the client's streams, read through its
// outputClock.
type clockedReader struct {
	r io.Reader
	o *outputClock
}

func (c *clockedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.o.last.Store(int64(c.o.since()))
	}
	return n, err
}

// exitWatch is the deadline of a client whose stdin closed (at closed, on
// the rig's clock) to exit: deadline from the close, or from the last
// bytes of its output the player read after it, whichever is later, and
// never more than most after the close. A client that is blocked writing
// output the player has not read yet (a flood, read slowly through a
// sandbox's stream on a loaded machine) is not one that hangs, and a
// client that writes for ever is still killed.
type exitWatch struct {
	out                    *outputClock
	closed, deadline, most time.Duration
}

// due is when the deadline passes, on the rig's clock, given the last
// read of output at last (ok false: none).
func (w exitWatch) due(last time.Duration, ok bool) time.Duration {
	from := w.closed
	if ok && last > from {
		from = last
	}
	return min(from+w.deadline, w.closed+w.most)
}

// left is how long the client still has at now; 0 or less once the
// deadline passed.
func (w exitWatch) left(now time.Duration) time.Duration {
	last, ok := w.out.at()
	return w.due(last, ok) - now
}

// verdict says why the client was killed once its deadline passed, and
// how long after its stdin closed that deadline came. With no output
// read after the close, the words are the ones a client that hangs has
// always been given.
func (w exitWatch) verdict() (why string, after time.Duration) {
	last, ok := w.out.at()
	after = w.due(last, ok) - w.closed
	switch {
	case !ok || last <= w.closed:
		return fmt.Sprintf("the client was still running %s after its stdin closed, and was killed", w.deadline.Round(time.Second)), after
	case last+w.deadline >= w.closed+w.most:
		return fmt.Sprintf("the client was still running, and still writing output, %s after its stdin closed, and was killed: once its stdin closes, a client has %s from its last output to exit, and %s at most",
			shownWait(w.most), shownWait(w.deadline), shownWait(w.most)), after
	}
	return fmt.Sprintf("the client was still running %s after the grader read the last of its output, which came after its stdin closed, and was killed", shownWait(w.deadline)), after
}

// shownWait is a deadline as a student reads it: to the millisecond,
// which is whole seconds at time scale 1.
func shownWait(d time.Duration) string { return d.Round(time.Millisecond).String() }
