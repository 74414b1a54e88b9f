package class_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// The benchmarks grade a class of 100 submissions with the process
// sandbox: the Go test server, correct ("reference") or with one mistake
// each, built once (a build step would measure the compiler). They check
// every verdict, and report the wall time of the whole class (calibration
// included) and its ratio to the sum of the scenarios' designed durations
// (each scenario's schedule, up to its last send or close, for every
// submission: what grading them one after the other would take if
// servers, processes and deadlines cost nothing).
//
//	go test -run '^$' -bench 'Class$' -benchtime 1x ./grading/class/
//
// BenchmarkClass mixes correct servers with the mistakes whose verdict
// needs no deadline to run out; BenchmarkClassWithDeadlines adds the
// no-ready, sequential, no-exit and hang servers, whose verdict is a
// deadline that ran out (the client waits 3 s for a ready line in each
// scenario; a hang needs 25 s and is graded twice, so that class takes at
// least 50 s). TestClassBenchmarkSmall runs BenchmarkClass's setup and
// verdict checks on 10 submissions, so a change that breaks them fails in
// go test.
//
// A submission never runs the lab binary: the process sandbox hides it
// from the programs it starts (the reference server is the lab, so
// calibration runs its own copy).

// benchKinds are the servers of a benchmark class: "reference" (the Go
// test server without a mistake), or a -mistake of it.
var (
	fastKinds = []string{"reference", "reference", "reference", "reference", "reference",
		"banner", "stringify-ids", "answers-notifications", "crash-at-start", "flood"}
	slowKinds = []string{"reference", "reference", "reference", "banner", "stringify-ids",
		"answers-notifications", "no-ready", "crash-at-start", "flood", "sequential", "no-exit", "hang"}
)

// benchExpected adds to EXPECTED.md (which has the go-* rows) the kinds it
// does not list, as `lab grade` finds them.
func benchExpected(t testing.TB) map[string]expectation {
	want := map[string]expectation{}
	for name, e := range readExpected(t) {
		if kind, ok := strings.CutPrefix(name, "go-"); ok {
			want[kind] = e
		}
	}
	lesson, err := serverlesson.Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	max, logs := 0, 0
	for _, c := range lesson.Checks() {
		max += c.Points
		if c.ID == "stderr.logs" {
			logs = c.Points
		}
	}
	want["reference"] = want["good"]
	want["no-ready"] = expectation{outcome: "wrong-answers", score: fmt.Sprintf("%d/%d", max-logs, max), failed: []string{"stderr.logs"}}
	// It exits with status 3 before its ready line: it never started, so
	// it cannot be graded (never a fail).
	want["crash-at-start"] = expectation{outcome: "could-not-start", score: "-", skipped: []string{"all"}}
	return want
}

// studentServer builds the Go test server once for the test binary (each
// submission links it in).
var studentServer = sync.OnceValues(func() (string, error) {
	return testkit.GoBuildStatic(labDir, "student", "../testdata/servers/student")
})

// benchClass makes n submissions cycling through kinds, and returns the
// submissions folder.
func benchClass(tb testing.TB, kinds []string, n int) string {
	tb.Helper()
	built, err := studentServer()
	if err != nil {
		tb.Fatal(err)
	}
	subs := filepath.Join(testkit.OpenDir(tb), "submissions")
	for i := range n {
		kind := kinds[i%len(kinds)]
		cmd := `"$(dirname "$0")/student"`
		if kind != "reference" {
			cmd += " -mistake " + kind
		}
		sd := filepath.Join(subs, fmt.Sprintf("s%03d-%s", i, kind))
		if err := os.MkdirAll(sd, 0o755); err != nil {
			tb.Fatal(err)
		}
		// In the submission, as a student's own build would leave it: the
		// process sandbox's programs see nothing else of /tmp.
		if err := os.Link(built, filepath.Join(sd, "student")); err != nil {
			if err := sandbox.CopyFile(built, filepath.Join(sd, "student"), 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(sd, "run"), []byte("#!/bin/sh\nexec "+cmd+"\n"), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return subs
}

// classBench is what one graded benchmark class measured.
type classBench struct {
	c                *class.Class
	wall, designed   time.Duration
	serial           time.Duration
	reruns, wrong    int
	designedEach     time.Duration
	submissionsGiven int
}

// gradeBenchClass grades n submissions of the kinds in mix with jobs at a time, and
// reports every verdict that is not the expected one with tb.Errorf.
func gradeBenchClass(tb testing.TB, mix []string, n, jobs int, before func()) classBench {
	tb.Helper()
	subs := benchClass(tb, mix, n)
	want := benchExpected(tb)
	lesson, err := serverlesson.Load(1, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var cb classBench
	for _, sc := range lesson.Scenarios {
		var last time.Duration
		for _, st := range sc.Steps {
			last = max(last, st.At)
		}
		cb.designedEach += last
	}
	cb.designed = time.Duration(n) * cb.designedEach
	cb.submissionsGiven = n
	sb := processSandbox(tb)
	if before != nil {
		before()
	}
	started := time.Now()
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: sb, Jobs: jobs, Reference: reference(tb)})
	cb.wall = time.Since(started)
	if err != nil {
		tb.Fatal(err)
	}
	cb.c = c
	if len(c.Students) != n {
		tb.Errorf("%d students graded, want %d", len(c.Students), n)
	}
	for _, s := range c.Students {
		cb.serial += time.Duration(s.Result.DurationMS) * time.Millisecond
		if s.Attempts > 1 {
			cb.reruns++
		}
		kind := s.Name[strings.IndexByte(s.Name, '-')+1:]
		w, ok := want[kind]
		if !ok {
			tb.Errorf("%s: no expectation for the kind %q", s.Name, kind)
			cb.wrong++
			continue
		}
		for _, p := range verdictProblems("go-"+kind, "process", w, s) {
			tb.Errorf("%s: %s", describe(s), p)
			cb.wrong++
		}
	}
	return cb
}

func (cb classBench) String() string {
	return fmt.Sprintf("%d submissions, %d jobs, %d cores: wall %v; designed %v (%v each); ratio %.3f; "+
		"per-submission grading times sum to %v (%.1fx the wall time); %d reruns of a timeout; time scale %.2f; %d wrong verdicts",
		len(cb.c.Students), cb.c.Jobs, runtime.NumCPU(), cb.wall.Round(time.Millisecond), cb.designed, cb.designedEach,
		cb.wall.Seconds()/cb.designed.Seconds(), cb.serial.Round(time.Millisecond), cb.serial.Seconds()/cb.wall.Seconds(),
		cb.reruns, cb.c.TimeScale, cb.wrong)
}

func benchmarkClass(b *testing.B, kinds []string, jobs int) {
	for range b.N {
		cb := gradeBenchClass(b, kinds, 100, jobs, b.ResetTimer)
		b.ReportMetric(cb.wall.Seconds(), "s/class")
		b.ReportMetric(cb.wall.Seconds()/cb.designed.Seconds(), "wall/designed")
		b.ReportMetric(float64(cb.wrong), "wrong-verdicts")
		b.Log(cb)
	}
}

func BenchmarkClass(b *testing.B) {
	for _, jobs := range []int{8, 16, 32} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) { benchmarkClass(b, fastKinds, jobs) })
	}
}

func BenchmarkClassWithDeadlines(b *testing.B) {
	benchmarkClass(b, slowKinds, 32)
}

// TestClassBenchmarkSmall is BenchmarkClass on 10 submissions (one of each
// kind): its setup builds, and every verdict is the expected one.
func TestClassBenchmarkSmall(t *testing.T) {
	t.Parallel()
	cb := gradeBenchClass(t, fastKinds, len(fastKinds), 8, nil)
	t.Log(cb)
}
