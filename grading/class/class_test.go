package class_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit/gradekit"
	"github.com/mcplab/mcplab/lab/event"
)

// aDuration matches a duration as the grader's messages print one.
var aDuration = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m)\b`)

// normalised is a result with what may differ between two gradings of the
// same submission taken out: durations (also inside messages), event
// times, and the order of events that race each other (an answer and a
// log line).
func normalised(r *grading.Result) grading.Result {
	n := *r
	n.DurationMS = 0
	n.Outcome.Detail = aDuration.ReplaceAllString(n.Outcome.Detail, "<duration>")
	n.Checks = nil
	for _, c := range r.Checks {
		c.Message = aDuration.ReplaceAllString(c.Message, "<duration>")
		n.Checks = append(n.Checks, c)
	}
	n.Transcript = nil
	for _, ev := range r.Transcript {
		if ev.Kind == event.Note {
			// The lab's notes say how its waits went on this machine (a
			// ready line that came late, an exit reported late): load
			// changes them from run to run, as it changes times. The
			// messages both ways, the verdicts and every check's message
			// must still match.
			continue
		}
		ev.At = 0
		n.Transcript = append(n.Transcript, ev)
	}
	sort.SliceStable(n.Transcript, func(i, j int) bool {
		a, b := n.Transcript[i], n.Transcript[j]
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Text < b.Text
	})
	return n
}

// A regrade of unchanged submissions gives the same results, tied to the
// same submission; a changed submission gets a new hash.
func TestRegradeGivesTheSameResult(t *testing.T) {
	t.Parallel()
	subs := classOf(t, copyOf(t, "py-good", "sh-good", "py-banner", "sh-banner", "missing-run", "failing-build"))
	opts := class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), Jobs: 6, TimeScale: 2}
	first, err := class.Grade(context.Background(), subs, opts)
	if err != nil {
		t.Fatal(err)
	}
	second, err := class.Grade(context.Background(), subs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Students) != 6 || len(second.Students) != 6 {
		t.Fatalf("graded %d and %d students, want 6", len(first.Students), len(second.Students))
	}
	for i, a := range first.Students {
		b := second.Students[i]
		if a.Name != b.Name {
			t.Fatalf("student %d: %s, then %s", i, a.Name, b.Name)
		}
		if !reflect.DeepEqual(normalised(a.Result), normalised(b.Result)) {
			ja, _ := json.MarshalIndent(normalised(a.Result), "", " ")
			jb, _ := json.MarshalIndent(normalised(b.Result), "", " ")
			t.Errorf("%s: the regrade differs:\n%s\n---\n%s", a.Name, ja, jb)
		}
	}

	// A change to the submission shows in its hash.
	before := first.Students[slices.IndexFunc(first.Students, func(s *class.Student) bool { return s.Name == "py-good" })].Result.Submission
	if err := os.WriteFile(filepath.Join(subs, "py-good", "NOTES.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after := class.Identify(filepath.Join(subs, "py-good"))
	if after.Hash == before.Hash || after.Name != before.Name {
		t.Errorf("identity before %+v, after a change %+v: want a new hash", before, after)
	}
}

// A run that timed out is run again; when the rerun disagrees, the result
// is the rerun's and it is marked flaky.
func TestFlakyTimeoutIsRerun(t *testing.T) {
	t.Parallel()
	// The first start of the server hangs; every later one is correct.
	run := `#!/bin/sh
if [ ! -e "$LAB_WORK/started" ]; then
	: > "$LAB_WORK/started"
	exec python3 "$(dirname "$0")/../../servers/student_py/server.py" --mistake hang
fi
exec python3 "$(dirname "$0")/../../servers/student_py/server.py"
`
	subs := classOf(t, map[string]string{"flaky/run": run})
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), TimeScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Students[0]
	r := s.Result
	if s.Attempts != 2 || !r.Flaky || r.Outcome.Kind != grading.OutcomePassed || r.Score != r.MaxScore {
		t.Errorf("attempts %d, flaky %v, outcome %s (%s), score %d/%d: want the rerun's pass, flagged flaky",
			s.Attempts, r.Flaky, r.Outcome.Kind, r.Outcome.Detail, r.Score, r.MaxScore)
	}
	if !strings.Contains(r.Outcome.Detail, "flaky") {
		t.Errorf("detail %q does not say the result is flaky", r.Outcome.Detail)
	}
}

func TestCalibrationFailureIsAnError(t *testing.T) {
	t.Parallel()
	subs := classOf(t, copyOf(t, "py-good"))
	_, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), Reference: []string{"/bin/true"}})
	if err == nil || !strings.Contains(err.Error(), "did not pass its own grading") {
		t.Errorf("error = %v, want one saying the reference did not pass", err)
	}
	_, err = class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t)})
	if err == nil || !strings.Contains(err.Error(), "no reference program") {
		t.Errorf("error = %v, want one asking for a reference or a scale", err)
	}
	_, err = class.Grade(context.Background(), subs, class.Options{Sandbox: processSandbox(t), TimeScale: 1})
	if err == nil || !strings.Contains(err.Error(), "no lesson kinds") {
		t.Errorf("error = %v, want one saying no lesson kinds were given", err)
	}
}

// Scripts that cannot run, and a build that overruns its time, make the
// submission ungradable, saying why.
func TestUngradable(t *testing.T) {
	t.Parallel()
	subs := classOf(t, map[string]string{
		"run-not-executable/run.sh": "#!/bin/sh\n",
		"slow-build/build":          "#!/bin/sh\necho compiling\nexec sleep 300\n",
		"slow-build/run":            "#!/bin/sh\nexit 0\n",
		"build-not-executable/run":  "#!/bin/sh\nexit 0\n",
		"notes.txt":                 "not a submission\n",
	})
	if err := os.WriteFile(filepath.Join(subs, "run-not-executable", "run"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(subs, "build-not-executable", "build"), []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), TimeScale: 1, BuildTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		kind    grading.OutcomeKind
		problem string
	}{
		"run-not-executable":   {grading.OutcomeCouldNotStart, "run is not executable (run chmod +x run"},
		"slow-build":           {grading.OutcomeBuildFailed, "The build step was still running after 1s and was stopped. Its output:\ncompiling"},
		"build-not-executable": {grading.OutcomeBuildFailed, "build is not executable"},
	}
	for _, s := range c.Students {
		w := want[s.Name]
		r := s.Result
		if r.Gradable || r.Outcome.Kind != w.kind || !strings.Contains(r.Problem, w.problem) {
			t.Errorf("%s: gradable %v, outcome %s, problem %q; want %s saying %q", s.Name, r.Gradable, r.Outcome.Kind, r.Problem, w.kind, w.problem)
		}
	}
	if !slices.Equal(c.Ignored, []string{"notes.txt"}) {
		t.Errorf("ignored %q, want notes.txt", c.Ignored)
	}
}

// The sweep replays the lesson's messages cut at seeded places; a correct
// server passes it, and the seed is in the result.
func TestSweep(t *testing.T) {
	t.Parallel()
	subs := classOf(t, copyOf(t, "py-good"))
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: processSandbox(t), TimeScale: 2, Sweep: 4, Cuts: 7})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Students[0].Result
	if r.Score != r.MaxScore || r.Cuts == nil || *r.Cuts != 7 {
		t.Errorf("score %d/%d, seed %v: want a pass with seed 7 (%s)", r.Score, r.MaxScore, r.Cuts, r.Outcome.Detail)
	}
	sweeps := map[string]bool{}
	for _, ev := range r.Transcript {
		if strings.HasPrefix(ev.Scenario, "sweep-") {
			sweeps[ev.Scenario] = true
		}
	}
	if len(sweeps) != 4 {
		t.Errorf("%d sweep scenarios in the transcript, want 4", len(sweeps))
	}
}

// sampleClass is a graded class made by hand, for the output tests.
func sampleClass(t *testing.T) *class.Class {
	t.Helper()
	lesson, err := serverlesson.Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	result := func(score int, kind grading.OutcomeKind, failed ...string) *grading.Result {
		r := &grading.Result{Lesson: 1, Gradable: true, Score: score, Outcome: grading.Outcome{Kind: kind}}
		for _, c := range lesson.Checks() {
			st := grading.StatusPass
			if slices.Contains(failed, c.ID) {
				st = grading.StatusFail
			}
			r.MaxScore += c.Points
			r.Checks = append(r.Checks, grading.CheckResult{ID: c.ID, Title: c.Title, Status: st, MaxPoints: c.Points})
		}
		return r
	}
	flaky := result(21, grading.OutcomePassed)
	flaky.Flaky = true
	return &class.Class{
		Lesson: 1, Sandbox: "process", Jobs: 4, MaxScore: 21, TimeScale: 1.25, Checks: lesson.Checks(),
		Calibration: &class.Calibration{Measured: 775 * time.Millisecond, Designed: 620 * time.Millisecond, Scale: 1.25},
		Duration:    12340 * time.Millisecond,
		Ignored:     []string{"README.md"},
		Students: []*class.Student{
			{Name: "zoë", Result: result(19, grading.OutcomeTimeout, "order.concurrent")},
			{Name: `ann, "the" <b>one</b>`, Result: result(21, grading.OutcomePassed)},
			{Name: "bo|b", Result: class.Ungradable(lesson, grading.OutcomeBuildFailed, "The build step exited with status 1.", "main.go:1: oops")},
			{Name: "cy", Result: result(17, grading.OutcomeWrongAnswers, "ids.exact", "order.concurrent")},
			{Name: "dee", Result: flaky},
		},
	}
}

func TestGradebook(t *testing.T) {
	var b bytes.Buffer
	if err := sampleClass(t).WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := `student,score,max_score,status,failed,flags
"ann, ""the"" <b>one</b>",21,21,graded,,
bo|b,,21,ungradable,,
cy,17,21,graded,ids.exact;order.concurrent,
dee,21,21,graded,,
zoë,19,21,graded,order.concurrent,
`
	if b.String() != want {
		t.Errorf("grades.csv:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestSummary(t *testing.T) {
	var b bytes.Buffer
	if err := sampleClass(t).WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	want := "# Lesson 1: class summary\n\n" +
		"5 submissions graded in 12.3s with the process sandbox, 4 at a time.\n\n" +
		"Deadlines × 1.25, calibrated: the reference server took 775ms here against 620ms designed (scale = max(1, 1.25 × measured / designed)).\n\n" +
		"- Graded: 4 (every check passed: 2)\n" +
		"- Could not grade: 1 (no score: see each student's report for why)\n" +
		"- Flaky (a run timed out and its rerun disagreed): 1: dee\n" +
		"- Not submission folders, ignored: README.md\n" +
		"\n## Score distribution\n\n" +
		"| score | students | |\n|---:|---:|:---|\n" +
		"| 21/21 | 2 | ██ |\n| 19/21 | 1 | █ |\n| 17/21 | 1 | █ |\n" +
		"\n## Checks most often failed\n\n" +
		"| check | students who failed it | what it asks |\n|:---|---:|:---|\n" +
		"| `order.concurrent` | 2 of 4 | a slow request does not block a fast one |\n" +
		"| `ids.exact` | 1 of 4 | every answer's id equals its request's id, same JSON type |\n" +
		"\n## Outcomes\n\n| outcome | students |\n|:---|---:|\n" +
		"| passed | 2 |\n| build-failed | 1 |\n| timeout | 1 |\n| wrong-answers | 1 |\n" +
		"\n## Students\n\n| student | score | outcome | failed checks |\n|:---|---:|:---|:---|\n" +
		"| ann, \"the\" \\<b\\>one\\</b\\> | 21/21 | passed |  |\n" +
		"| bo\\|b | — | build-failed |  |\n" +
		"| cy | 17/21 | wrong-answers | ids.exact, order.concurrent |\n" +
		"| dee | 21/21 | passed (flaky) |  |\n" +
		"| zoë | 19/21 | timeout | order.concurrent |\n"
	if b.String() != want {
		t.Errorf("summary.md:\n%s\nwant:\n%s", b.String(), want)
	}
}

// Every format lands in the student's folder under its own name, and is
// what report.Write makes of the result.
func TestWriteReports(t *testing.T) {
	c := sampleClass(t)
	c.Students = c.Students[2:3] // bo|b, ungradable
	dir := filepath.Join(gradekit.WriteReports(t, c), class.StudentsDir)
	entries, err := os.ReadDir(filepath.Join(dir, "bo|b"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"exercism.json", "github-summary.md", "github.txt", "gradescope.json", "json.json", "junit.xml", "markdown.md", "prairielearn.json", "report.html", "text.txt"}
	if !slices.Equal(names, want) {
		t.Errorf("files %q, want %q", names, want)
	}
	for _, f := range []string{report.FormatJSON, report.FormatPrairieLearn, report.FormatJUnit} {
		var b bytes.Buffer
		if err := report.Write(&b, f, c.Students[0].Result, report.Options{}); err != nil {
			t.Fatal(err)
		}
		file, err := class.FileName(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "bo|b", file))
		if err != nil || !bytes.Equal(got, b.Bytes()) {
			t.Errorf("%s: the file differs from report.Write's output (%v)", f, err)
		}
	}
	var pl struct {
		Gradable bool `json:"gradable"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "bo|b", "prairielearn.json"))
	if err := json.Unmarshal(data, &pl); err != nil || pl.Gradable {
		t.Errorf("prairielearn.json: gradable %v (%v), want false", pl.Gradable, err)
	}
}

// A server the container kills for memory is told so in plain words.
func TestKilledForMemory(t *testing.T) {
	sb := containerSandbox(t)
	t.Parallel()
	hog := `#!/bin/sh
exec python3 -c '
import sys
sys.stderr.write("log: ready\n")
sys.stderr.flush()
sys.stdin.readline()
x = bytearray(400 << 20)
x[::4096] = b"1" * len(x[::4096])
'
`
	subs := classOf(t, map[string]string{"hog/run": hog})
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: sb, TimeScale: 2,
		RunLimits: sandbox.Limits{Memory: 64 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Students[0].Result
	if r.Outcome.Kind != grading.OutcomeMemory || !strings.Contains(r.Outcome.Detail, "killed for using more than 64MiB of memory") {
		t.Errorf("outcome %s (%s), want killed-for-memory", r.Outcome.Kind, r.Outcome.Detail)
	}
}

// A calibration that asked for more than MaxCalibratedScale is capped, and
// the summary says so and why no student loses by it.
func TestSummarySaysTheScaleWasCapped(t *testing.T) {
	c := sampleClass(t)
	c.Calibration = &class.Calibration{Measured: 15 * time.Second, Designed: 1570 * time.Millisecond, Scale: class.MaxCalibratedScale, Capped: true}
	c.TimeScale = class.MaxCalibratedScale
	var b bytes.Buffer
	if err := c.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	want := "Deadlines × 4.00, calibrated: the reference server took 15s here against 1.57s designed (scale = max(1, 1.25 × measured / designed), " +
		"at most 4: the machine was busy with more than this grading, and a deadline missed at this scale is graded again at four times it before it costs a point).\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary:\n%s\nwant a line:\n%s", b.String(), want)
	}
}
