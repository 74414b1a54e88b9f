package stdioprobe

import (
	"fmt"
	"time"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/scenario"
)

// A server that has taken not one byte of its input cannot have answered
// any of it, and cannot see its stdin close: it has not read up to the end.
// Where the process can tell its stdin backlog in bytes (a local pipe can),
// the client uses that to stop waiting for such a server as soon as the
// server has had the read deadline (the drain's, 2 s scaled) to start
// reading: an await ends, the drain gives up, and after stdin is closed the
// server is stopped at once instead of being given the exit deadline. Only
// a server that showed it was ready (a stderr line, a probe's answer) is
// judged so: one that shows nothing may still be starting when its first
// chunk is written, however long that takes. A server that has read
// anything at all, or one whose process cannot tell, is waited for exactly
// as before.

// readWithin is how long a server has to take a chunk it was sent (scaled):
// the drain's deadline, and the deadline to start reading at all.
func (pl *player) readWithin() time.Duration { return pl.opts.scaled(ReadDeadline, 0) }

// wrote records a chunk that went out to the server's stdin.
func (pl *player) wrote(data []byte) {
	if pl.written == 0 {
		pl.firstWrite = time.Now()
	}
	pl.sent = append(pl.sent, data...)
	pl.written += len(data)
}

// exitWithin is the deadline for the server to exit once its stdin is
// closed (scaled): ExitWithin when it is set; else 2 s when every request
// sent has had its answer, for the server has only to read the end of its
// input and exit, and 5 s while answers are still due, for it may finish
// them first.
func (pl *player) exitWithin() time.Duration {
	if pl.opts.ExitWithin > 0 {
		return pl.opts.scaled(pl.opts.ExitWithin, 0)
	}
	for _, id := range scenario.RequestIDs(pl.sent) {
		if ok, _ := pl.rec.answered(id); !ok {
			return pl.opts.scaled(ExitDeadline, 0)
		}
	}
	return pl.opts.scaled(ExitDeadlineAnswered, 0)
}

// readBy is when a server that has read nothing is taken to read nothing:
// the read deadline after the first chunk was written.
func (pl *player) readBy() time.Time { return pl.firstWrite.Add(pl.readWithin()) }

// sawBacklog takes a backlog just measured: unless it is exactly what was
// written, the server has taken some input (or the count is not in bytes),
// and it is never taken for one that reads nothing.
func (pl *player) sawBacklog(n int) {
	if n != pl.written {
		pl.tookInput = true
	}
}

// untouched reports whether the server has, as far as the process can tell,
// taken not one byte of what was written to its stdin.
func (pl *player) untouched() bool {
	if pl.tookInput || pl.written == 0 || !pl.saidReady {
		return false
	}
	b, ok := pl.p.(proc.StdinBacklogger)
	if !ok {
		pl.tookInput = true
		return false
	}
	n, err := b.StdinBacklog()
	if err != nil {
		pl.tookInput = true
		return false
	}
	pl.sawBacklog(n)
	return !pl.tookInput
}

// deaf reports whether the server has read none of its input for the whole
// read deadline after the first chunk was written.
func (pl *player) deaf() bool {
	return pl.written > 0 && !pl.tookInput && pl.saidReady && !time.Now().Before(pl.readBy()) && pl.untouched()
}

// deafTimer fires at readBy while the server may still turn out to read
// nothing; it is nil when that cannot be (nothing written yet, or the
// server has taken input, or the process cannot tell).
func (pl *player) deafTimer() (<-chan time.Time, func()) {
	if pl.written == 0 || pl.tookInput || !pl.saidReady {
		return nil, func() {}
	}
	if _, ok := pl.p.(proc.StdinBacklogger); !ok {
		return nil, func() {}
	}
	t := time.NewTimer(max(time.Until(pl.readBy()), 0))
	return t.C, func() { t.Stop() }
}

// unreadWhy says what a deaf server did not do, for a note or a kill reason.
func (pl *player) unreadWhy() string {
	return fmt.Sprintf("the server read none of the %d bytes sent to its stdin within %v of the first chunk", pl.written, pl.readWithin())
}
