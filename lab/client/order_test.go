package client_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lab/server"
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
// a process of its own as `lab serve reader` runs it, 100 times while a
// child process keeps every CPU busy, and wants the taught order of answers
// every time: `lab run` and `docker compose up` show students what the
// lesson says they will see.
func TestLessonOrderUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the lesson 100 times (about 30 s); skipped with -short")
	}
	keepCPUsBusy(t)
	sc := lessonScenario(t)
	ref := client.Command{Path: os.Args[0], Args: []string{"-test.run=^TestHelperServe$"},
		Env: append(os.Environ(), "MCPLAB_HELPER_SERVE=1")}
	bad := 0
	for i := 1; i <= 100; i++ {
		run, err := client.Play(context.Background(), sc, ref, client.Options{})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if !run.Exit.OK() || !run.ExitedAfterClose {
			t.Fatalf("run %d: server %v, exited after close %v", i, run.Exit, run.ExitedAfterClose)
		}
		var got []string
		for _, a := range run.Answers {
			got = append(got, a.Line)
		}
		if strings.Join(got, "\n") == strings.Join(taughtOrder, "\n") {
			continue
		}
		bad++
		// The one order the schedule leaves to time: the long wait's 80 ms
		// run from when its line was read, and the bad lines must be read
		// before they are over. Say how long the client took to send them.
		var sends []time.Duration
		var events strings.Builder
		for _, ev := range run.Events {
			events.WriteString(ev.Line(true) + "\n")
			if ev.Kind == client.EventSend {
				sends = append(sends, ev.At)
			}
		}
		gap := "unknown"
		if len(sends) == 4 {
			gap = (sends[3] - sends[0]).Round(time.Millisecond).String()
		}
		t.Errorf("run %d of 100: the answers came as\n%s\nwant the taught order\n%s\nthe client sent the bad lines %s after the long wait (the schedule says 40ms); the run:\n%s",
			i, strings.Join(got, "\n"), strings.Join(taughtOrder, "\n"), gap, events.String())
	}
	if bad > 0 {
		t.Errorf("%d of 100 runs did not show the taught order", bad)
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
