package class_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
)

// stopSandbox is a sandbox that reports when each submission's program is
// first started, and holds the start of the submissions named in hold
// until the grading is stopped (a start that a stop cuts short, as a
// signal does).
type stopSandbox struct {
	sandbox.Sandbox
	hold    map[string]bool
	mu      sync.Mutex
	started map[string]chan struct{}
}

func (s *stopSandbox) entered(name string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.started[name]
	if !ok {
		ch = make(chan struct{})
		s.started[name] = ch
	}
	return ch
}

func (s *stopSandbox) Starter(spec sandbox.Spec) proc.Starter {
	inner := s.Sandbox.Starter(spec)
	name := filepath.Base(spec.Dir)
	return starterFunc(func(ctx context.Context) (proc.Process, error) {
		ch := s.entered(name)
		s.mu.Lock()
		select {
		case <-ch:
		default:
			close(ch)
		}
		s.mu.Unlock()
		if s.hold[name] {
			<-ctx.Done()
			return nil, fmt.Errorf("starting the program: %w", ctx.Err())
		}
		return inner.Start(ctx)
	})
}

type starterFunc func(ctx context.Context) (proc.Process, error)

func (f starterFunc) Start(ctx context.Context) (proc.Process, error) { return f(ctx) }

// TestStopIsExact stops the grading of a class, under load, while one
// student's program is being started, one is mid-scenario and two wait
// for their turn: the one graded before the stop keeps its result, and
// every other student is not graded (never ungradable for a start the stop
// cut short), in the class, grades.csv and summary.md alike.
func TestStopIsExact(t *testing.T) {
	t.Parallel()
	testkit.BusyCore(t)
	// Each submission holds its own copy of the bash test server, as a
	// student's would: the sandbox shows a program nothing else of /tmp.
	server := readServer(t)
	good := "#!/bin/sh\nexec bash \"$(dirname \"$0\")/server.sh\"\n"
	hang := "#!/bin/sh\nexec bash \"$(dirname \"$0\")/server.sh\" --mistake hang\n"
	files := map[string]string{}
	for name, run := range map[string]string{"a-good": good, "b-starting": good, "c-hang": hang, "d-good": good, "e-good": good} {
		files[name+"/run"] = run
		files[name+"/server.sh"] = server
	}
	subs := classOf(t, files)
	sb := &stopSandbox{Sandbox: processSandbox(t), hold: map[string]bool{"b-starting": true}, started: map[string]chan struct{}{}}
	stop := errors.New("stopped by the test (as by SIGTERM)")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var onResult []string
	// Deadlines × 5: c-hang's run lasts minutes, however slow a-good's is
	// on a loaded machine (a correct server never waits for a deadline).
	opts := class.Options{Kinds: kinds.Builtin(), Sandbox: sb, Jobs: 3, TimeScale: 5, OnResult: func(done, total int, s *class.Student) {
		onResult = append(onResult, fmt.Sprintf("%d/%d %s", done, total, s.Name))
		if s.Name != "a-good" {
			return
		}
		if !s.Result.Gradable {
			t.Errorf("a-good: %s", s.Result.Problem)
		}
		// Stop once b-starting is being started and c-hang is running:
		// both are mid-grade, whatever the load.
		deadline := time.NewTimer(2 * time.Minute)
		defer deadline.Stop()
		for _, n := range []string{"b-starting", "c-hang"} {
			select {
			case <-sb.entered(n):
			case <-deadline.C:
				t.Errorf("%s was never started", n)
			}
		}
		cancel(stop)
	}}
	started := time.Now()
	c, err := class.Grade(ctx, subs, opts)
	t.Logf("Grade returned %v after it started", time.Since(started).Round(time.Millisecond))
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want the stop", err)
	}
	if c == nil {
		t.Fatal("no class returned with the stop")
	}
	var graded []string
	for _, s := range c.Students {
		graded = append(graded, s.Name)
	}
	if strings.Join(graded, " ") != "a-good" || strings.Join(c.NotGraded, " ") != "b-starting c-hang d-good e-good" || !c.Incomplete {
		t.Errorf("graded %q, not graded %q, incomplete %v; want a-good graded, the four others not graded", graded, c.NotGraded, c.Incomplete)
	}
	if strings.Join(onResult, ",") != "1/5 a-good" {
		t.Errorf("OnResult calls %q, want one, for a-good", onResult)
	}
	if c.StoppedBy != stop.Error() {
		t.Errorf("stopped by %q, want %q", c.StoppedBy, stop.Error())
	}
	var csv strings.Builder
	if err := c.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	m := c.MaxScore
	want := fmt.Sprintf("student,score,max_score,status,failed,flags\na-good,%d,%d,graded,,\n"+
		"b-starting,,%d,not-graded,,grading-stopped\nc-hang,,%d,not-graded,,grading-stopped\n"+
		"d-good,,%d,not-graded,,grading-stopped\ne-good,,%d,not-graded,,grading-stopped\n", m, m, m, m, m, m)
	if csv.String() != want {
		t.Errorf("grades.csv:\n%s\nwant:\n%s", csv.String(), want)
	}
	var md strings.Builder
	if err := c.WriteSummary(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ReplaceAll(md.String(), `\`, ""), "before 4 submissions were graded: b-starting, c-hang, d-good, e-good.") {
		t.Errorf("summary.md does not count and name the four not graded:\n%s", md.String())
	}
}

// A stop that comes once every student is graded leaves the class whole.
func TestStopAfterTheLastIsComplete(t *testing.T) {
	t.Parallel()
	subs := classOf(t, map[string]string{"a-good/run": "#!/bin/sh\nexec bash \"$(dirname \"$0\")/server.sh\"\n", "a-good/server.sh": readServer(t)})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := errors.New("stopped by the test")
	c, err := class.Grade(ctx, subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), TimeScale: 1,
		OnResult: func(done, total int, s *class.Student) { cancel(stop) }})
	if err != nil || c == nil || c.Incomplete || len(c.Students) != 1 || len(c.NotGraded) != 0 {
		t.Fatalf("error %v, class %+v; want every student graded, the class complete", err, c)
	}
}

// readServer is the bash test server's source.
func readServer(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata(t), "servers", "student_sh", "server.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
