package class_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
)

// The benchmarks grade a class of 100 submissions with the process
// sandbox: copies of the reference server and of the Go test server with
// one mistake each, prebuilt (a build step would measure the compiler).
// They check every verdict, and report the wall time of the whole class
// (calibration included) and its ratio to the sum of the scenarios'
// designed durations (each scenario's schedule, up to its last send or
// close, for every submission: what grading them one after the other would
// take if servers, processes and deadlines cost nothing).
//
//	go test -run XXX -bench Class -benchtime 1x ./grading/class/
//
// BenchmarkClass mixes the reference with the mistakes whose verdict needs
// no deadline to run out; BenchmarkClassWithDeadlines adds the no-ready,
// sequential, no-exit and hang servers, whose verdict is a deadline that ran
// out (the client waits 3 s for a ready line in each scenario; a hang needs
// 25 s and is graded twice, so that class takes at least 50 s).

// benchKinds are the servers of a benchmark class: "reference", or a
// -mistake of the Go test server.
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
	want["reference"] = want["good"]
	want["no-ready"] = expectation{outcome: "wrong-answers", score: "20/21", failed: []string{"stderr.logs"}}
	want["crash-at-start"] = expectation{outcome: "server-exited", score: "1/21",
		failed: []string{"framing.split-message", "framing.many-per-chunk", "errors.parse", "errors.invalid-request",
			"methods.wait", "methods.unknown", "answers.once", "order.concurrent", "lifecycle.exit-on-eof"},
		skipped: []string{"notifications.silent", "ids.exact", "stdout.messages-only"}}
	return want
}

// benchClass makes 100 submissions cycling through kinds, and returns the
// submissions folder and the reference command.
func benchClass(b *testing.B, kinds []string) (string, []string) {
	b.Helper()
	dir := openDir(b)
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		b.Fatal(err)
	}
	student := filepath.Join(bin, "student")
	build := exec.Command("go", "build", "-o", student, ".")
	build.Dir = filepath.Join(testdata(b), "servers", "student")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the test server: %v\n%s", err, out)
	}
	ref := reference(b)
	subs := filepath.Join(dir, "submissions")
	for i := range 100 {
		kind := kinds[i%len(kinds)]
		cmd := student + " -mistake " + kind
		if kind == "reference" {
			cmd = strings.Join(ref, " ")
		}
		sd := filepath.Join(subs, fmt.Sprintf("s%03d-%s", i, kind))
		if err := os.MkdirAll(sd, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sd, "run"), []byte("#!/bin/sh\nexec "+cmd+"\n"), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return subs, ref
}

func benchmarkClass(b *testing.B, kinds []string, jobs int) {
	subs, ref := benchClass(b, kinds)
	want := benchExpected(b)
	lesson, err := grading.LoadLesson(1, nil)
	if err != nil {
		b.Fatal(err)
	}
	var designedEach time.Duration
	for _, sc := range lesson.Scenarios {
		var last time.Duration
		for _, st := range sc.Steps {
			last = max(last, st.At)
		}
		designedEach += last
	}
	designed := 100 * designedEach
	sb := processSandbox(b)
	b.ResetTimer()
	for range b.N {
		started := time.Now()
		c, err := class.Grade(context.Background(), subs, class.Options{Sandbox: sb, Jobs: jobs, Reference: ref})
		wall := time.Since(started)
		if err != nil {
			b.Fatal(err)
		}
		var serial time.Duration
		reruns, wrong := 0, 0
		for _, s := range c.Students {
			serial += time.Duration(s.Result.DurationMS) * time.Millisecond
			if s.Attempts > 1 {
				reruns++
			}
			kind := s.Name[strings.IndexByte(s.Name, '-')+1:]
			for _, p := range verdictProblems("go-"+kind, "process", want[kind], s) {
				b.Errorf("%s: %s", describe(s), p)
				wrong++
			}
		}
		b.ReportMetric(wall.Seconds(), "s/class")
		b.ReportMetric(wall.Seconds()/designed.Seconds(), "wall/designed")
		b.Logf("%d submissions, %d jobs, %d cores: wall %v; designed %v (%v each); ratio %.3f; "+
			"per-submission grading times sum to %v (%.1fx the wall time); %d reruns of a timeout; time scale %.2f; %d wrong verdicts",
			len(c.Students), c.Jobs, runtime.NumCPU(), wall.Round(time.Millisecond), designed, designedEach,
			wall.Seconds()/designed.Seconds(), serial.Round(time.Millisecond), serial.Seconds()/wall.Seconds(),
			reruns, c.TimeScale, wrong)
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
