package clientlesson_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// BenchmarkStressClient is BenchmarkStress for lesson 3: it grades the
// reference client (lab client) and two known-bad clients stress.n times
// each, stress.parallel at a time, while a goroutine keeps one core busy.
// Every reference grade must be full marks (the hang scenario's short
// timeout included), and each known-bad client must fail its own check
// alone: verdicts rest on causality, not timing. It reports the slowest
// reference grade too. Run it with:
//
//	go test ./grading/clientlesson -run '^$' -bench StressClient -benchtime 1x
func BenchmarkStressClient(b *testing.B) {
	for i := 0; i < b.N; i++ {
		stressClients(b, *stressN, *stressParallel)
	}
}

// TestStressClientSmall is BenchmarkStressClient at a size every test run
// can afford: two grades of each client, all six at once, one core busy.
func TestStressClientSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("grades six lesson-3 clients at once; not in -short mode")
	}
	stressClients(t, 2, 6)
}

// stressClient is one client of the stress run and the verdict it must get.
type stressClient struct {
	name    string
	starter proc.Starter
	failed  []string // exactly these checks fail, none is skipped
}

func stressClients(tb testing.TB, n, parallel int) {
	tb.Helper()
	student := bin(tb, "student-client")
	relay := []string{bin(tb, "lab"), "relay"}
	clients := []stressClient{
		{name: "reference", starter: proc.Command{Path: bin(tb, "lab"), Args: []string{"client"}}},
		{name: "first-event", starter: proc.Command{Path: student, Args: []string{"-mistake", "first-event"}}, failed: []string{"response-by-id"}},
		{name: "same-id", starter: proc.Command{Path: student, Args: []string{"-mistake", "same-id"}}, failed: []string{"ids"}},
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	busy := make(chan struct{})
	go func() { // the other core, busy
		defer close(busy)
		runtime.LockOSThread()
		for ctx.Err() == nil {
		}
	}()
	right := make([]atomic.Int64, len(clients))
	var wrong atomic.Int64
	var slowest atomic.Int64 // of the reference grades, in nanoseconds
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for j := 0; j < len(clients)*n; j++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(k int) {
			defer func() { <-sem; wg.Done() }()
			c := clients[k]
			started := time.Now()
			res, err := grading.GradeKind(ctx, labKind(), grading.Options{Lesson: 3, Student: c.starter, Relay: relay})
			took := time.Since(started)
			if why := stressVerdict(res, err, c.failed); why != "" {
				wrong.Add(1)
				tb.Errorf("%s: %s", c.name, why)
				return
			}
			right[k].Add(1)
			if k == 0 {
				for {
					old := slowest.Load()
					if int64(took) <= old || slowest.CompareAndSwap(old, int64(took)) {
						break
					}
				}
			}
		}(j % len(clients))
	}
	wg.Wait()
	stop()
	<-busy
	if b, ok := tb.(*testing.B); ok {
		b.ReportMetric(float64(right[0].Load()), "full-marks")
		b.ReportMetric(float64(right[1].Load()), "first-event-flagged")
		b.ReportMetric(float64(right[2].Load()), "same-id-flagged")
		b.ReportMetric(float64(wrong.Load()), "wrong-verdicts")
		b.ReportMetric(time.Duration(slowest.Load()).Seconds(), "s-slowest-reference")
	}
	for k, c := range clients {
		if got := right[k].Load(); got != int64(n) {
			tb.Errorf("%s: %d of %d grades got the right verdict", c.name, got, n)
		}
	}
}

// stressVerdict says what is wrong with a grade that should fail exactly
// the checks failed, skip none and score the rest; "" when nothing is.
func stressVerdict(res *grading.Result, err error, failed []string) string {
	switch {
	case err != nil:
		return "grading: " + err.Error()
	case !res.Gradable:
		return "ungradable: " + res.Problem
	}
	var skipped []string
	for _, c := range res.Checks {
		if c.Status == grading.StatusSkip {
			skipped = append(skipped, c.ID)
		}
	}
	got := res.Failed()
	if !slices.Equal(got, failed) || len(skipped) > 0 || res.Score != res.MaxScore-len(failed) {
		return fmt.Sprintf("failed %v and skipped %v, scoring %d/%d (%s: %s); want exactly %v failed", got, skipped, res.Score, res.MaxScore, res.Outcome.Kind, res.Outcome.Detail, failed)
	}
	return ""
}
