package proc_test

import (
	"errors"
	"io"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/mcplab/mcplab/lab/proc"
)

// TestEndsWaitsForEnd checks that every Wait, started before End or after
// it, returns the exit End recorded first, that Done is closed by End and
// not before, and that a second End changes nothing.
func TestEndsWaitsForEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inR, inW := io.Pipe()
		outR, _ := io.Pipe()
		errR, _ := io.Pipe()
		defer inR.Close()
		e := proc.NewEnds(inW, outR, errR)
		if e.Stdin() != io.WriteCloser(inW) || e.Stdout() != io.Reader(outR) || e.Stderr() != io.Reader(errR) {
			t.Fatal("Stdin, Stdout and Stderr are not the pipes NewEnds was given")
		}

		const waiters = 8
		got := make([]proc.Exit, waiters)
		returned := make([]bool, waiters)
		var wg sync.WaitGroup
		for i := range waiters {
			wg.Go(func() {
				got[i] = e.Wait()
				returned[i] = true
			})
		}
		synctest.Wait() // every waiter is blocked in Wait
		for i, r := range returned {
			if r {
				t.Fatalf("Wait %d returned before End", i)
			}
		}
		select {
		case <-e.Done():
			t.Fatal("Done is closed before End")
		default:
		}

		want := proc.Exit{Code: -1, Signal: "killed", Reason: "killed for using more than 1 MiB of memory"}
		e.End(want)
		e.End(proc.Exit{Code: 3, Err: errors.New("a second end")})
		wg.Wait()
		for i, x := range got {
			if x != want {
				t.Errorf("Wait %d = %+v, want %+v", i, x, want)
			}
		}
		if x := e.Wait(); x != want {
			t.Errorf("a Wait after End = %+v, want %+v", x, want)
		}
		select {
		case <-e.Done():
		default:
			t.Fatal("Done is still open after End")
		}
	})
}
