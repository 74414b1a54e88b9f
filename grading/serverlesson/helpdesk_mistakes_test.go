package serverlesson_test

import (
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// helpdeskBinary builds, once per test run, lesson 2's helpdesk with
// -mistake flags (testdata/servers/helpdesk).
var helpdeskBinary = sync.OnceValues(func() (string, error) {
	dir, err := osMkdirTemp()
	if err != nil {
		return "", err
	}
	return testkit.GoBuild(dir, "helpdesk-mistakes", "../testdata/servers/helpdesk")
})

// helpdeskMistakes is every mistake of the lesson-2 test helpdesk, with the
// exact set of lesson-2 checks it must fail: each breaks one rule that the
// lesson's text or its checks state, and costs exactly the checks about
// that rule.
var helpdeskMistakes = map[string][]string{
	"":                      nil,
	"method-message":        {"methods.unknown"},
	"no-supported":          {"version.unsupported"},
	"version-as-meta-error": {"version.unsupported"},
	"list-no-cache":         {"tools.list"},
	"list-no-serverinfo":    {"tools.list"},
	"no-input-schema":       {"tools.list"},
	"vague-text":            {"tools.call"},
	"cursor-ignored":        {"tools.bad-cursor"},
	"number-arg-error":      {"tools.unknown-ticket"},
	"missing-ticket-error":  {"tools.unknown-ticket"},
	"unknown-tool-result":   {"tools.unknown-tool"},
	"discover-no-cache":     {"discover.fields"},
	"discover-no-tools":     {"discover.fields"},
	"discover-old-versions": {"discover.fields"},
	"stateful-meta":         {"meta.required"},
	"meta-outside-params":   {"meta.required"},
	"no-jsonrpc-check":      {"errors.invalid-request"},
	"null-id-echo":          {"errors.null-id"},
	"bool-id-accepted":      {"errors.null-id"},
	"parse-id-null":         {"errors.parse-no-id"},
	"answers-notifications": {"notifications.silent"},
	"no-legacy":             {"legacy.initialize"},
	"legacy-newest":         {"legacy.initialize"},
	"legacy-result-type":    {"legacy.initialize"},
	"stringify-ids":         {"ids.exact"},
	"double-answer":         {"answers.once"},
	"stdout-log":            {"stdout.messages-only"},
	"no-stderr":             {"stderr.logs"},
	"exit-status-1":         {"lifecycle.exit-on-eof"},
}

// TestHelpdeskMistakes grades lesson 2's helpdesk once with each mistake
// (and once with none) and asserts the exact set of failed checks, the
// score that follows from it, and that no check is skipped.
func TestHelpdeskMistakes(t *testing.T) {
	t.Parallel()
	exe, err := helpdeskBinary()
	if err != nil {
		t.Fatal(err)
	}
	lesson, err := serverlesson.Load(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	points := map[string]int{}
	full := 0
	for _, c := range lesson.Checks() {
		points[c.ID] = c.Points
		full += c.Points
	}
	// Every mistake the server knows is in the table, and every check is
	// failed by at least one mistake.
	out, err := exec.Command(exe, "-mistake", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	known := strings.Fields(string(out))
	var listed []string
	covered := map[string]bool{}
	for m, failed := range helpdeskMistakes {
		if m != "" {
			listed = append(listed, m)
		}
		for _, c := range failed {
			if _, ok := points[c]; !ok {
				t.Errorf("mistake %s: %s is not a lesson-2 check", m, c)
			}
			covered[c] = true
		}
	}
	sort.Strings(listed)
	if !reflect.DeepEqual(known, listed) {
		t.Errorf("the server's mistakes %v, the table's %v", known, listed)
	}
	for _, c := range lesson.Checks() {
		if !covered[c.ID] {
			t.Errorf("no mistake fails %s", c.ID)
		}
	}
	var names []string
	for m := range helpdeskMistakes {
		names = append(names, m)
	}
	sort.Strings(names)
	for _, m := range names {
		want := helpdeskMistakes[m]
		t.Run("mistake="+m, func(t *testing.T) {
			t.Parallel()
			args := []string{}
			if m != "" {
				args = []string{"-mistake", m}
			}
			res, err := gradeLesson2(t, proc.Command{Path: exe, Args: args})
			if err != nil {
				t.Fatal(err)
			}
			score := full
			for _, c := range want {
				score -= points[c]
			}
			if got := res.Failed(); !reflect.DeepEqual(got, want) {
				t.Errorf("failed checks %v, want %v", got, want)
				for _, c := range res.Checks {
					if c.Status == grading.StatusFail {
						t.Logf("%s: %s", c.ID, c.Message)
					}
				}
			}
			for _, c := range res.Checks {
				if c.Status == grading.StatusSkip {
					t.Errorf("%s skipped: %s", c.ID, c.Message)
				}
			}
			if res.Score != score || res.MaxScore != full {
				t.Errorf("score %d/%d, want %d/%d", res.Score, res.MaxScore, score, full)
			}
		})
	}
}

// gradeLesson2 grades a server with lesson 2's built-in checks, at a time
// scale that leaves room for a loaded machine.
func gradeLesson2(t *testing.T, starter proc.Starter) (*grading.Result, error) {
	t.Helper()
	return serverlesson.Grade(t.Context(), grading.Options{Lesson: 2, Student: starter, TimeScale: 2})
}

// TestHelpdeskAnswerLinesRefused checks that a teacher's mistake in an
// answer line is refused when the lesson loads, with the line and the
// reason, rather than judged as a fail at grade time.
func TestHelpdeskAnswerLinesRefused(t *testing.T) {
	t.Parallel()
	const checks = "-- methods.ping --\ntitle: ping answers\npoints: 1\n-- stdout.messages-only --\ntitle: only messages\npoints: 1\njudge: messages-only\n"
	const head = "-- steps --\nat 0ms send p\n-- p --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- expect --\n"
	cases := map[string]string{
		"methods.ping answer 1 result.x equals 3":        `line 6: "methods.ping answer 1 result.x equals 3": unknown test "equals"`,
		"methods.ping answer 2 result present":           "line 6: no request of the scenario has the id 2",
		"methods.ping answer 1.5 result present":         `line 6: "1.5" is not an id`,
		"methods.ping answer 1":                          `line 6: want "answer ID PATH TEST [VALUE]"`,
		"methods.nope answer 1 result present":           `check "methods.nope" is not in cases/list.txtar`,
		"stdout.messages-only answer 1 result present":   `check "stdout.messages-only" is judged from the traffic alone`,
		`methods.ping answer 1 result.x contains 3`:      "contains takes a JSON string",
		`methods.ping answer 1 result..x present`:        "an empty member name",
		`methods.ping answer 1 result present "surplus"`: "present takes no value",
		`methods.ping answer 1 result.v includes two`:    `the value "two" is not JSON`,
	}
	for line, want := range cases {
		dir := fstest.MapFS{
			"lesson.txt":       {Data: []byte("number: 1\ntitle: T\nsubject: server\nserver: reader\nready: none\nchecks: cases/list.txtar\ngrading: cases/*.txtar\n")},
			"cases/list.txtar": {Data: []byte(checks)},
			"cases/one.txtar":  {Data: []byte(head + line + "\n")},
		}
		_, err := serverlesson.Load(1, dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: LoadLesson = %v, want an error holding %q", line, err, want)
		}
	}
}
