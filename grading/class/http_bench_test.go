package class_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// The lesson 4 class benchmark grades a class of HTTP help desks (the test
// server of grading/httpserverlesson, correct or with one mistake whose
// verdict needs no deadline to run out) in the process sandbox, each copy
// behind its tunnel, and checks every verdict. It reports the wall time
// of the class against a class of one correct server graded in the same
// run (calibration included in both): the ratio says what grading a class
// at once costs over grading its students one after the other.
//
//	go test -run '^$' -bench HTTPClass -benchtime 1x ./grading/class/
//
// TestHTTPClassBenchmarkSmall runs the same setup and verdict checks on
// one submission of each kind.

// httpBenchKinds are the kinds of a lesson 4 benchmark class, each with
// the checks it fails.
var httpBenchKinds = []struct {
	mistake string
	failed  []string
}{
	{"", nil},
	{"", nil},
	{"notification-200", []string{"http.notification-202"}},
	{"no-origin-check", []string{"security.origin"}},
	{"get-200", []string{"http.get-405"}},
	{"stateful-cursor", []string{"stateless.any-copy"}},
	{"text-plain", []string{"http.post-answer"}},
}

// gradeHTTPBenchClass grades n lesson 4 submissions cycling through
// httpBenchKinds, jobs at a time, checks each verdict, and returns the
// wall time.
func gradeHTTPBenchClass(tb testing.TB, n, jobs int) time.Duration {
	tb.Helper()
	bin, err := labBinary()
	if err != nil {
		tb.Fatal(err)
	}
	mistakes := map[string]string{}
	want := map[string][]string{}
	for i := range n {
		k := httpBenchKinds[i%len(httpBenchKinds)]
		name := fmt.Sprintf("s%03d", i)
		if k.mistake != "" {
			name += "-" + k.mistake
		}
		mistakes[name], want[name] = k.mistake, k.failed
	}
	subs := httpClass(tb, mistakes)
	sb := processSandbox(tb)
	ctx, cancel := testkit.TestContext(tb)
	defer cancel()
	started := time.Now()
	c, err := class.Grade(ctx, subs, class.Options{Kinds: kinds.Builtin(), Lesson: 4, Sandbox: sb, Jobs: jobs,
		Reference: []string{bin, "serve", "helpdesk", "--http", "127.0.0.1:$PORT"}})
	wall := time.Since(started)
	if err != nil {
		tb.Fatal(err)
	}
	checkFailedSets(tb, c, want)
	return wall
}

func BenchmarkHTTPClass(b *testing.B) {
	for range b.N {
		one := gradeHTTPBenchClass(b, 1, 1)
		for _, n := range []int{14, 28} {
			wall := gradeHTTPBenchClass(b, n, 8)
			ratio := wall.Seconds() / (float64(n) * one.Seconds())
			b.ReportMetric(wall.Seconds(), fmt.Sprintf("s/class-of-%d", n))
			b.ReportMetric(ratio, fmt.Sprintf("class-of-%d/serial", n))
			b.Logf("%d lesson 4 submissions, 8 jobs, %d cores: wall %v; one correct server graded alone %v; class / (n × one) = %.3f",
				n, runtime.NumCPU(), wall.Round(time.Millisecond), one.Round(time.Millisecond), ratio)
		}
	}
}

// TestHTTPClassBenchmarkSmall is BenchmarkHTTPClass's setup and verdicts on
// one submission of each kind.
func TestHTTPClassBenchmarkSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grading an HTTP server class takes about a minute")
	}
	t.Parallel()
	wall := gradeHTTPBenchClass(t, len(httpBenchKinds), 4)
	t.Logf("%d lesson 4 submissions, 4 jobs: %v", len(httpBenchKinds), wall.Round(time.Millisecond))
}
