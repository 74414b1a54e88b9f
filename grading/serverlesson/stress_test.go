package serverlesson_test

import (
	"context"
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

var (
	stressN        = flag.Int("stress.n", 200, "grades of each server in BenchmarkStress")
	stressParallel = flag.Int("stress.parallel", 25, "grades run at once in BenchmarkStress")
)

// BenchmarkStress grades the reference server, the sequential-waits server
// and the chunk-as-line server stress.n times each, stress.parallel at a
// time, while a goroutine keeps one core busy. Every reference grade must be
// full marks, every sequential grade must fail order.concurrent alone and
// every chunk-as-line grade must fail framing.split-message: verdicts rest
// on causality, not timing. Run it with:
//
//	go test ./grading/serverlesson -run '^$' -bench Stress -benchtime 1x
func BenchmarkStress(b *testing.B) {
	ref := proc.Command{Path: bin(b, "lab"), Args: []string{"serve", "reader"}}
	seq := proc.Command{Path: bin(b, "student"), Args: []string{"-mistake", "sequential"}}
	chunky := proc.Command{Path: bin(b, "student"), Args: []string{"-mistake", "chunk-as-line"}}
	for i := 0; i < b.N; i++ {
		ctx, stop := context.WithCancel(context.Background())
		go func() { // the other core, busy
			runtime.LockOSThread()
			for ctx.Err() == nil {
			}
		}()
		var full, flagged, split, wrong atomic.Int64
		sem := make(chan struct{}, *stressParallel)
		var wg sync.WaitGroup
		for j := 0; j < 3**stressN; j++ {
			wg.Add(1)
			sem <- struct{}{}
			go func(kind int) {
				defer func() { <-sem; wg.Done() }()
				starter := []proc.Starter{ref, seq, chunky}[kind]
				res, err := serverlesson.Grade(ctx, grading.Options{Student: starter})
				switch {
				case err != nil:
					wrong.Add(1)
				case kind == 0 && res.Score == res.MaxScore:
					full.Add(1)
				case kind == 1 && len(res.Failed()) == 1 && res.Failed()[0] == "order.concurrent":
					flagged.Add(1)
				case kind == 2 && len(res.Failed()) > 0 && res.Failed()[0] == "framing.split-message":
					split.Add(1)
				default:
					wrong.Add(1)
					b.Logf("unexpected verdict (server %d): %v %v", kind, res.Failed(), res.Outcome)
				}
			}(j % 3)
		}
		wg.Wait()
		stop()
		b.ReportMetric(float64(full.Load()), "full-marks")
		b.ReportMetric(float64(flagged.Load()), "sequential-flagged")
		b.ReportMetric(float64(split.Load()), "chunk-as-line-flagged")
		b.ReportMetric(float64(wrong.Load()), "wrong-verdicts")
		n := int64(*stressN)
		if wrong.Load() != 0 || full.Load() != n || flagged.Load() != n || split.Load() != n {
			b.Errorf("of %d each: %d full marks, %d sequential and %d chunk-as-line flagged; %d wrong verdicts",
				n, full.Load(), flagged.Load(), split.Load(), wrong.Load())
		}
	}
}
