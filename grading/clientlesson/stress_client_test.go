package clientlesson_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
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
// alone, graded as lab grade grades (deadline failures confirmed before
// they are charged): verdicts rest on causality, not timing. It reports the slowest
// reference grade too. Run it with:
//
//	go test ./grading/clientlesson -run '^$' -bench StressClient -benchtime 1x
func BenchmarkStressClient(b *testing.B) {
	for i := 0; i < b.N; i++ {
		stressClients(b, *stressN, *stressParallel, 1)
	}
}

// TestStressClientSmall is BenchmarkStressClient's setup and verdicts at
// a size every test run can afford: one grade of each client, all three at
// once, one core busy, at time scale 1 as the benchmark grades. In CI,
// beside every other package at a load average of 30 to 40, a client's own
// 3 s timeout in the hang scenario can run out on its tools/list: the
// checks that then fail or go unjudged rest on that deadline and are
// graded again at four times it before anything is charged, so the
// verdicts hold (TestAClientTheMachineMadeGiveUpIsGradedAgain shows it
// without the load).
func TestStressClientSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("grades three lesson-3 clients at once; not in -short mode")
	}
	stressClients(t, 1, 3, 1)
}

// stressClient is one client of the stress run and the verdict it must get.
type stressClient struct {
	name    string
	starter proc.Starter
	failed  []string // exactly these checks fail, none is skipped
}

func stressClients(tb testing.TB, n, parallel int, scale float64) {
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
			// As lab grade grades: a failure that rests on a deadline (the
			// client's own 3 s timeout in the hang scenario, run out while
			// the busy core held the answer back) is confirmed at a larger
			// scale before it is charged.
			res, err := grading.Grade(ctx, grading.Options{Kinds: grading.NewKinds(labKind()), Lesson: 3, Student: c.starter, Relay: relay, TimeScale: scale})
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
		var why strings.Builder
		for _, c := range res.Checks {
			if c.Status != grading.StatusPass {
				fmt.Fprintf(&why, "\n  %s %s: %s", c.Status, c.ID, c.Message)
			}
		}
		return fmt.Sprintf("failed %v and skipped %v, scoring %d/%d (%s: %s); want exactly %v failed%s", got, skipped, res.Score, res.MaxScore, res.Outcome.Kind, res.Outcome.Detail, failed, why.String())
	}
	return ""
}
