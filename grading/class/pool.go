package class

import (
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/mcplab/mcplab/grading"
)

// pool grades a class's submissions with a fixed number of workers, each
// with a slot of its own in the sandbox. A failure of the lab's own (not a
// student's) stops the other workers.
type pool struct {
	g    *grader
	subs []Folder

	mu       sync.Mutex
	closed   bool       // set when run returns without a stuck worker
	done     int        // how many students are graded
	students []*Student // by index in subs; nil where not graded
	firstErr error      // the lab's first failure
}

// newPool is the pool that grades subs with g.
func newPool(g *grader, subs []Folder) *pool {
	return &pool{g: g, subs: subs, students: make([]*Student, len(subs))}
}

// run grades the submissions with jobs workers until each is graded or
// ctx ends. Once ctx ends it waits stopWithin at most for the workers to
// let go; a worker still stuck then is left behind. It returns the
// students graded, by index in subs (nil where not graded), and the lab's
// first failure, if any; a student graded after run returns is dropped.
func (p *pool) run(ctx context.Context, jobs int) ([]*Student, error) {
	eg, ctx := errgroup.WithContext(ctx)
	next := make(chan int)
	for slot := range jobs {
		eg.Go(func() error { return p.work(ctx, slot, next) })
	}
feed:
	for i := range p.subs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	finished := make(chan struct{})
	go func() {
		_ = eg.Wait() // the first failure is p.firstErr
		close(finished)
	}()
	select {
	case <-finished:
	case <-ctx.Done():
		t := time.NewTimer(stopWithin)
		select {
		case <-finished:
		case <-t.C:
		}
		t.Stop()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	return slices.Clone(p.students), p.firstErr
}

// work is one worker: it grades the submissions whose index comes on next,
// in its slot, until next closes or the lab itself fails (the error,
// which stops the other workers).
func (p *pool) work(ctx context.Context, slot int, next <-chan int) error {
	for i := range next {
		p.g.opts.progress(grading.ProgressEvent{Kind: grading.ProgressStudentStarted, Name: p.subs[i].Name, Total: len(p.subs)})
		st, err := p.g.student(ctx, slot, i, p.subs[i])
		if err := p.record(ctx, i, st, err); err != nil {
			return err
		}
	}
	return nil
}

// record keeps the outcome of grading the submission i: the student, with
// its progress and OnResult, or the lab's failure err, which it returns.
// A student graded once run has returned, or while ctx was ending, is
// dropped.
func (p *pool) record(ctx context.Context, i int, st *Student, err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return nil
	case err == nil && ctx.Err() != nil:
		// Stopped while this student was being graded: a run cut short
		// proves nothing, so the student is not graded rather than given
		// what the cut left.
		return nil
	case err != nil:
		if p.firstErr == nil {
			p.firstErr = err
		}
		return err
	}
	p.students[i] = st
	p.done++
	p.g.opts.progress(grading.ProgressEvent{Kind: grading.ProgressStudentEnded, Name: st.Name, Index: p.done, Total: len(p.subs), Verdict: Verdict(st)})
	if p.g.opts.OnResult != nil {
		p.g.opts.OnResult(p.done, len(p.subs), st)
	}
	return nil
}
