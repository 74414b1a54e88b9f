package stdioprobe_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/server"
	"github.com/mcplab/mcplab/lab/stdioprobe"
)

// taughtOrder is the order of answers lesson 1 teaches (its README's table
// and the top README's transcript): the short wait, the ping, the two bad
// lines in the order they came, and the long wait last.
var taughtOrder = []string{
	`{"jsonrpc":"2.0","id":2,"result":{"waited":10}}`,
	`{"jsonrpc":"2.0","id":3,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}`,
	`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string, not the number 5"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"waited":80}}`,
}

// TestLessonOrderUnderLoad plays lesson 1 against the reference server, in
// a process of its own as `lab serve reader` runs it, while a child process
// keeps every CPU busy, and wants the taught order of answers in 100 runs of
// 100: `lab run` and `docker compose up` show students what the lesson says
// they will see.
//
// The awaits of the lesson's scenario make every order in it causal but one:
// the long wait's 80 ms start when the server reads its line, and the bad
// lines sent at 40 ms must be read before they are over. A run in which
// either side fell behind the schedule is no evidence about the server's
// order either way, so it is played again, up to maxTries runs in all: the
// client fell behind when it sent the bad lines keptSchedule or more after
// the long wait; the server did when, by its own log, it read the ping
// (sent with the bad lines) serverMargin or less before its long wait was
// over, too close to tell its timer from its reads on a machine whose CPUs
// are all taken.
func TestLessonOrderUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the lesson 100 times (about 30 s); skipped with -short")
	}
	const (
		runs         = 100
		maxTries     = 200
		keptSchedule = 50 * time.Millisecond
		longWait     = 80 * time.Millisecond
		serverMargin = 20 * time.Millisecond
	)
	keepCPUsBusy(t)
	sc := lessonScenario(t)
	ref := proc.Command{Path: os.Args[0], Args: []string{"-test.run=^TestHelperServe$"},
		// Without the race detector's second of sleep at exit, which every
		// run would otherwise wait for.
		Env: append(os.Environ(), "MCPLAB_HELPER_SERVE=1", "GORACE=atexit_sleep_ms=0")}
	tries, kept, taught, wrong := 0, 0, 0, 0
	for kept < runs && tries < maxTries {
		tries++
		run, err := stdioprobe.Play(context.Background(), sc, ref, stdioprobe.Options{})
		if err != nil {
			t.Fatalf("run %d: %v", tries, err)
		}
		if !run.Exit.OK() || !run.ExitedAfterClose {
			t.Fatalf("run %d: server %v, exited after close %v", tries, run.Exit, run.ExitedAfterClose)
		}
		var got []string
		for _, a := range run.Answers {
			got = append(got, a.Line)
		}
		inOrder := strings.Join(got, "\n") == strings.Join(taughtOrder, "\n")
		if inOrder {
			taught++
		}
		var sends []time.Duration
		var readWait, readPing time.Duration = -1, -1 // by the server's log
		var events strings.Builder
		for _, ev := range run.Events {
			events.WriteString(ev.Line(true) + "\n")
			switch {
			case ev.Kind == event.Send:
				sends = append(sends, ev.At)
			case ev.Kind == event.Stderr && strings.Contains(ev.Text, "got wait id=1") && readWait < 0:
				readWait = ev.At
			case ev.Kind == event.Stderr && strings.Contains(ev.Text, "got ping id=3") && readPing < 0:
				readPing = ev.At
			}
		}
		if readWait < 0 || readPing < 0 {
			t.Fatalf("run %d: the server did not log reading the long wait and the ping:\n%s", tries, events.String())
		}
		if len(sends) != 4 {
			t.Fatalf("run %d: %d chunks sent, want 4:\n%s", tries, len(sends), events.String())
		}
		if gap := sends[3] - sends[0]; gap >= keptSchedule {
			t.Logf("run %d: the client sent the bad lines %v after the long wait (the schedule says 40ms): not counted", tries, gap.Round(time.Millisecond))
			continue
		}
		if gap := readPing - readWait; gap >= longWait-serverMargin {
			t.Logf("run %d: the server read the ping %v after the long wait, within %v of its end: not counted", tries, gap.Round(time.Millisecond), serverMargin)
			continue
		}
		kept++
		if !inOrder {
			wrong++
			t.Errorf("run %d: the answers came as\n%s\nwant the taught order\n%s\nthe run:\n%s",
				tries, strings.Join(got, "\n"), strings.Join(taughtOrder, "\n"), events.String())
		}
	}
	t.Logf("%d runs, %d in the taught order; %d kept the schedule, %d of those out of order", tries, taught, kept, wrong)
	if kept < runs && wrong == 0 {
		t.Skipf("the machine is too busy to keep the lesson's schedule: %d of %d runs kept it, %d are needed (all of them in the taught order)", kept, tries, runs)
	}
}

// keepCPUsBusy starts this test binary again as a child process that spins
// one thread per CPU until the test ends. A separate process loads the
// machine the way other programs do, leaving the client's and the server's
// Go schedulers alone.
func keepCPUsBusy(t *testing.T) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSpin$")
	cmd.Env = append(os.Environ(), "MCPLAB_HELPER_SPIN=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the spinner: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close() // the spinner exits when its stdin ends
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

// TestHelperServe is the reference server of TestLessonOrderUnderLoad, run
// as its child process on real pipes, the way `lab serve reader` runs it; as
// a plain test it does nothing.
func TestHelperServe(t *testing.T) {
	if os.Getenv("MCPLAB_HELPER_SERVE") != "1" {
		t.Skip("the reference server of TestLessonOrderUnderLoad, run as its child process")
	}
	srv := &server.Server{Handler: server.Reader{}, Log: os.Stderr}
	if err := srv.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "serving:", err)
		os.Exit(1)
	}
	os.Exit(0) // before the test framework prints PASS on stdout
}

// TestHelperSpin is the spinner of keepCPUsBusy; as a plain test it does
// nothing.
func TestHelperSpin(t *testing.T) {
	if os.Getenv("MCPLAB_HELPER_SPIN") != "1" {
		t.Skip("the CPU spinner of TestLessonOrderUnderLoad, run as its child process")
	}
	stop := make(chan struct{})
	for range runtime.NumCPU() {
		go func() {
			n := 0
			for {
				select {
				case <-stop:
					return
				default:
					n++
				}
			}
		}()
	}
	buf := make([]byte, 1)
	os.Stdin.Read(buf) // returns when the parent closes the pipe
	close(stop)
}
