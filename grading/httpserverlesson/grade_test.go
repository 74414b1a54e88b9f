package httpserverlesson_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/httpserverlesson"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"
)

// tempRoot holds the binaries the tests build; TestMain removes it.
var tempRoot string

func TestMain(m *testing.M) {
	testkit.MainInTemp(m, "mcplab-httpserverlesson-test-", func(dir string) { tempRoot = dir })
}

// helpdeskBinary builds, once per test run, the help desk over HTTP with
// -mistake flags (testdata/httphelpdesk).
var helpdeskBinary = sync.OnceValues(func() (string, error) {
	return testkit.GoBuild(tempRoot, "httphelpdesk", "./testdata/httphelpdesk")
})

// helpdesk starts the test help desk with one mistake ("" for none).
func helpdesk(t *testing.T, mistake string) proc.Starter {
	t.Helper()
	bin, err := helpdeskBinary()
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs("../../lessons/02-json-rpc-on-the-wire/data")
	if err != nil {
		t.Fatal(err)
	}
	return proc.Command{Path: bin, Args: []string{"-mistake", mistake, "-data", data}, EndGroup: true}
}

// grade grades a starter against lesson 4, deadline failures confirmed as
// lab grade confirms them.
func grade(t *testing.T, s proc.Starter, scale float64) *grading.Result {
	t.Helper()
	res, err := grading.Grade(context.Background(), grading.Options{
		Kinds: grading.NewKinds(httpserverlesson.Kind{}), Lesson: 4, Student: s, TimeScale: scale,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Each mistake costs exactly the checks about the rule it breaks, and the
// reference gets full marks: one fault, one check.
func TestKnownBadServers(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		failed []string
		scale  float64
	}{
		"":                 {nil, 1},
		"notification-200": {[]string{"http.notification-202"}, 1},
		"no-origin-check":  {[]string{"security.origin"}, 1},
		"no-method-check":  {[]string{"headers.method"}, 1},
		"no-header-check":  {[]string{"headers.protocol-version", "headers.method", "headers.name"}, 1},
		"get-200":          {[]string{"http.get-405"}, 1},
		// Its answers are right but sent as text/plain: only the check of
		// the answer's form is charged, every other still reads them.
		"text-plain":            {[]string{"http.post-answer"}, 1},
		"large-body-400":        {[]string{"http.body-bound"}, 1},
		"stream-after-response": {[]string{"http.event-stream"}, 1},
		// It dies on the large body: that exchange's check is charged,
		// the exchange after it on the same copy is not played, and the
		// next scenario starts the copy again, so no later check loses
		// its evidence.
		"dies-on-large-body": {[]string{"http.body-bound"}, 1},
		"stateful-cursor":    {[]string{"stateless.any-copy"}, 1},
		// A deadline failure, confirmed at four times the scale: a
		// shorter scale keeps the test's two waits short.
		"ignores-sigterm": {[]string{"lifecycle.sigterm"}, 0.5},
	}
	for mistake, want := range tests {
		t.Run("mistake="+mistake, func(t *testing.T) {
			t.Parallel()
			res := grade(t, helpdesk(t, mistake), want.scale)
			if !res.Gradable {
				t.Fatalf("not gradable: %s", res.Problem)
			}
			if got := res.Failed(); !reflect.DeepEqual(got, want.failed) {
				t.Errorf("failed %v, want %v", got, want.failed)
				for _, c := range res.Checks {
					if c.Status != grading.StatusPass {
						t.Logf("%s %s: %s", c.Status, c.ID, c.Message)
					}
				}
			}
			for _, c := range res.Checks {
				if c.Status == grading.StatusSkip {
					t.Errorf("check %s was not judged: %s", c.ID, c.Message)
				}
			}
			if want.failed == nil && res.Score != res.MaxScore {
				t.Errorf("score %d/%d, want full marks", res.Score, res.MaxScore)
			}
		})
	}
}

// A program that never listens on PORT cannot be graded, and is told why
// and what to do.
func TestNeverListens(t *testing.T) {
	t.Parallel()
	res := grade(t, proc.Command{Path: "sleep", Args: []string{"60"}, EndGroup: true}, 0.2)
	if res.Gradable || res.Outcome.Kind != grading.OutcomeCouldNotStart {
		t.Fatalf("gradable %v, outcome %s; want could-not-start", res.Gradable, res.Outcome.Kind)
	}
	for _, want := range []string{"never listened on 127.0.0.1:", "environment variable PORT", "Read PORT from the environment"} {
		if !strings.Contains(res.Problem, want) {
			t.Errorf("problem %q does not say %q", res.Problem, want)
		}
	}
}
