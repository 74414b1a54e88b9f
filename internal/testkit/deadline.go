package testkit

import (
	"context"
	"testing"
	"time"
)

// TestContext returns a context for a slow test's commands (an image
// build, a Compose stack, a browser) that ends where the test binary's own
// deadline (go test -timeout) comes, less a margin for the test to report
// what it was waiting for and clean up: a tenth of the time left, at least
// 10 s and at most a minute. It also ends when the test does (t.Context).
//
// A fixed timeout in such a test is a guess at the machine's speed: on a
// fresh or loaded CI machine an image build that takes 30 s here took
// minutes, and a 10-minute context killed a build that was about to pass.
// The binary's deadline is the one bound the run has; with no -timeout
// (go test's default, 10 minutes, still applies) the context only ends with
// the test.
func TestContext(t testing.TB) (context.Context, context.CancelFunc) {
	ctx := t.Context()
	d, ok := deadlineOf(t)
	if !ok {
		return context.WithCancel(ctx)
	}
	margin := time.Until(d) / 10
	margin = max(10*time.Second, min(time.Minute, margin))
	return context.WithDeadline(ctx, d.Add(-margin))
}

// deadlineOf is t.Deadline, for a testing.TB that has one (a *testing.T).
func deadlineOf(t testing.TB) (time.Time, bool) {
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		return dt.Deadline()
	}
	return time.Time{}, false
}
