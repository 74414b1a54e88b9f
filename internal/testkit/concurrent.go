package testkit

import (
	"sync"
	"testing"
)

// Concurrently runs f as one subtest of t per name, up to width of them
// at once, and returns when every one has ended. The subtests are not held
// to go test's -parallel limit, which is GOMAXPROCS unless set (two on a
// two-core machine): it is for subtests that mostly wait, on a program
// under test and on its deadlines, so that they overlap instead of taking
// turns two by two. Each subtest may fail or skip as any other (testing.T
// allows Run from several goroutines at once).
func Concurrently(t *testing.T, width int, names []string, f func(t *testing.T, i int)) {
	t.Helper()
	if width < 1 {
		width = 1
	}
	slots := make(chan struct{}, width)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			t.Run(name, func(t *testing.T) { f(t, i) })
		}()
	}
	wg.Wait()
}
