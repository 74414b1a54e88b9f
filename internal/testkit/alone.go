package testkit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// aloneEnv, in the environment of a test binary RunAlone starts, names the
// one test that process runs to do its work.
const aloneEnv = "MCPLAB_TEST_ALONE"

// RunAlone lets a test that measures its own process (its peak memory, say)
// run beside the package's other tests instead of before them, one at a
// time: the test's work is done in a fresh process of the same test binary
// that runs that test alone, so no other test's memory or goroutines are in
// what it measures.
//
// RunAlone reports whether the caller is that process and should do the
// work. In the test's own process it marks t parallel, starts the child,
// waits for it (within t's deadline), fails t with the child's output when
// the child fails, skips t when the child skipped, logs the output
// otherwise, and returns false: the caller then returns.
func RunAlone(t *testing.T) bool {
	t.Helper()
	if os.Getenv(aloneEnv) == t.Name() {
		return true
	}
	t.Parallel()
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
		defer cancel()
	}
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.Name()) + "$", "-test.count=1", "-test.v"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if f := flag.Lookup("test.timeout"); f != nil {
		args = append(args, "-test.timeout="+f.Value.String())
	}
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), aloneEnv+"="+t.Name())
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start).Round(time.Millisecond)
	text := string(out)
	var exit *exec.ExitError
	switch {
	case err == nil && strings.Contains(text, "--- SKIP: "+t.Name()+" "):
		t.Skipf("the test skipped in a process of its own (%v):\n%s", took, text)
	case err == nil:
		t.Logf("ran in a process of its own (%v):\n%s", took, text)
	case errors.As(err, &exit):
		t.Errorf("the test failed in a process of its own (%s after %v):\n%s", exitText(exit), took, text)
	default:
		t.Errorf("the test could not run in a process of its own: %v\n%s", err, text)
	}
	return false
}

// exitText says how a child process ended.
func exitText(exit *exec.ExitError) string {
	if code := exit.ExitCode(); code >= 0 {
		return "exit status " + strconv.Itoa(code)
	}
	return fmt.Sprint(exit.ProcessState)
}

// DefaultParallel sets how many of a package's parallel tests run at once
// (-test.parallel) to n, unless the command line set it or Go's default is
// larger already. Go's default is
// GOMAXPROCS, right for tests that keep a core busy; a package whose tests
// mostly wait (on deadlines a grader gives a student, on containers, on
// processes in a sandbox) finishes sooner with more at once, and its
// verdicts must hold on a busy machine anyway. Call it from TestMain; it
// parses the command line if nothing has yet.
func DefaultParallel(n int) error {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if set || runtime.GOMAXPROCS(0) >= n {
		return nil
	}
	if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
		return fmt.Errorf("setting -test.parallel to %d: %w", n, err)
	}
	return nil
}
