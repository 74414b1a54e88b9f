package grading_test

import (
	"context"
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/client"
)

var (
	stressN        = flag.Int("stress.n", 200, "grades of each server in BenchmarkStress")
	stressParallel = flag.Int("stress.parallel", 25, "grades run at once in BenchmarkStress")
)

// BenchmarkStress grades the reference server and the sequential-waits
// server stress.n times each, stress.parallel at a time, while a goroutine
// keeps one core busy. Every reference grade must be full marks and every
// sequential grade must fail order.concurrent: verdicts rest on causality,
// not timing. Run it with:
//
//	go test ./grading -run '^$' -bench Stress -benchtime 1x
func BenchmarkStress(b *testing.B) {
	ref := client.Command{Path: bin(b, "lab"), Args: []string{"serve", "reader"}}
	seq := client.Command{Path: bin(b, "student"), Args: []string{"-mistake", "sequential"}}
	for i := 0; i < b.N; i++ {
		ctx, stop := context.WithCancel(context.Background())
		go func() { // the other core, busy
			runtime.LockOSThread()
			for ctx.Err() == nil {
			}
		}()
		var full, flagged, wrong atomic.Int64
		sem := make(chan struct{}, *stressParallel)
		var wg sync.WaitGroup
		for j := 0; j < 2**stressN; j++ {
			wg.Add(1)
			sem <- struct{}{}
			go func(reference bool) {
				defer func() { <-sem; wg.Done() }()
				opts := grading.Options{Starter: seq}
				if reference {
					opts.Starter = ref
				}
				res, err := grading.Grade(ctx, opts)
				switch {
				case err != nil:
					wrong.Add(1)
				case reference && res.Score == res.MaxScore:
					full.Add(1)
				case !reference && len(res.Failed()) == 1 && res.Failed()[0] == "order.concurrent":
					flagged.Add(1)
				default:
					wrong.Add(1)
					b.Logf("unexpected verdict (reference %v): %v %v", reference, res.Failed(), res.Outcome)
				}
			}(j%2 == 0)
		}
		wg.Wait()
		stop()
		b.ReportMetric(float64(full.Load()), "full-marks")
		b.ReportMetric(float64(flagged.Load()), "sequential-flagged")
		b.ReportMetric(float64(wrong.Load()), "wrong-verdicts")
		if wrong.Load() != 0 || full.Load() != int64(*stressN) || flagged.Load() != int64(*stressN) {
			b.Errorf("%d full marks and %d flagged of %d each, %d wrong verdicts", full.Load(), flagged.Load(), *stressN, wrong.Load())
		}
	}
}
