package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/testkit"
)

// Each format is checked against what its platform documents. The JSON
// formats have a JSON Schema each in testdata/platforms, written from these
// documents (each schema's $comment says which sections):
//
//   - gradescope: https://gradescope-autograders.readthedocs.io/en/latest/specs/
//   - prairielearn: https://prairielearn.readthedocs.io/en/latest/externalGrading/
//     (Grading results)
//   - exercism: https://exercism.org/docs/building/tooling/test-runners/interface
//   - github: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
//     (the commands and their escaping), the limits of 10 annotations of a
//     type a step in https://github.com/actions/toolkit/blob/main/docs/problem-matchers.md,
//     the 1 MiB job summary in
//     https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#adding-a-job-summary,
//     and the two notices GitHub Classroom reads, as its reporter writes them:
//     https://github.com/classroom-resources/autograding-grading-reporter/blob/main/src/notify-classroom.js
//   - json: our own, grading.Result in grading/result.go
//   - junit: the JUnit schema of Jenkins' xUnit plugin, junit-10.xsd, kept in
//     testdata/junit with its MIT notice, checked with xmllint:
//     https://github.com/jenkinsci/xunit-plugin/blob/master/src/main/resources/org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd
//
// A schema cannot compare two fields, so platformRules adds what the
// documents ask across fields (a score within its maximum, a top-level score
// that is the sum of the tests', the two Classroom notices agreeing).

// platformSchemas compiles the schemas in testdata/platforms, by format.
func platformSchemas(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	out := map[string]*jsonschema.Schema{}
	for _, name := range []string{FormatGradescope, FormatPrairieLearn, FormatExercism, FormatJSON, "github-report"} {
		path, err := filepath.Abs(filepath.Join("testdata", "platforms", name+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(path)
		if err != nil {
			t.Fatalf("compiling %s: %v", path, err)
		}
		out[name] = s
	}
	return out
}

// validateJSON checks doc against schema, and says where it does not meet it.
func validateJSON(t testing.TB, what string, schema *jsonschema.Schema, doc []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Errorf("%s: not JSON: %v\n%s", what, err, clipForLog(doc))
		return
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("%s: does not meet what its platform documents:\n%v\n%s", what, err, clipForLog(doc))
	}
}

func clipForLog(b []byte) string {
	if len(b) > 4000 {
		return string(b[:4000]) + "…"
	}
	return string(b)
}

// ciRequires reports whether the environment is CI (CI set, and not false),
// where a tool a test needs must be there.
func ciRequires() (string, bool) {
	ci := os.Getenv("CI")
	return ci, ci != "" && ci != "false" && ci != "0"
}

// findXmllint returns the path of xmllint, or false when it is not
// installed; under CI it must be (CI installs it), and its absence fails
// the test.
func findXmllint(t testing.TB) (string, bool) {
	t.Helper()
	path, err := exec.LookPath("xmllint")
	if err == nil {
		return path, true
	}
	if ci, ok := ciRequires(); ok {
		t.Fatalf("xmllint is not installed, and CI=%s needs it to validate the JUnit reports against junit-10.xsd: install Debian's libxml2-utils (.ci/run does)", ci)
	}
	return "", false
}

// noXmllint is why a test does not validate JUnit reports here.
const noXmllint = "xmllint is not installed, so the JUnit reports are not validated against junit-10.xsd here (apt-get install libxml2-utils; CI installs it and validates them)"

// junitValidator validates JUnit documents against junit-10.xsd with
// xmllint, each within a generous deadline. Without xmllint (outside CI) it
// checks only that the counts are those of the testcases.
type junitValidator struct {
	xmllint, schema, dir string
	n                    int
}

// newJUnitValidator returns a validator; ok is false when xmllint is not
// installed, and then the validator checks the counts only.
func newJUnitValidator(t testing.TB) (v *junitValidator, ok bool) {
	t.Helper()
	bin, ok := findXmllint(t)
	schema, err := filepath.Abs(filepath.Join("testdata", "junit", "junit-10.xsd"))
	if err != nil {
		t.Fatal(err)
	}
	return &junitValidator{xmllint: bin, schema: schema, dir: t.TempDir()}, ok
}

// validate checks one JUnit document against the schema, then that its
// counts are those of its testcases.
func (v *junitValidator) validate(t testing.TB, what string, doc []byte) {
	t.Helper()
	junitCounts(t, what, doc)
	if v.xmllint == "" {
		return
	}
	v.n++
	file := filepath.Join(v.dir, fmt.Sprintf("report-%d.xml", v.n))
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	out, err := exec.CommandContext(ctx, v.xmllint, "--noout", "--nonet", "--schema", v.schema, file).CombinedOutput()
	if err != nil {
		t.Errorf("%s: the JUnit report does not validate against junit-10.xsd (Jenkins xUnit plugin): %v\n%s\n%s", what, err, out, clipForLog(doc))
	}
}

// junitCounts checks that each count of the JUnit report is that of its
// testcases.
func junitCounts(t testing.TB, what string, doc []byte) {
	t.Helper()
	var ju juShape
	if err := xml.Unmarshal(doc, &ju); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	var tests, failures, errs int
	for _, s := range ju.Suites {
		f, e, sk := s.caseCounts()
		if got, want := []int{s.Tests, s.Failures, s.Errors, s.Skipped}, []int{len(s.Cases), f, e, sk}; !slices.Equal(got, want) {
			t.Errorf("%s: suite %s says tests, failures, errors, skipped = %v; its testcases have %v", what, s.Name, got, want)
		}
		tests, failures, errs = tests+s.Tests, failures+s.Failures, errs+s.Errors
	}
	if got, want := []int{ju.Tests, ju.Failures, ju.Errors}, []int{tests, failures, errs}; !slices.Equal(got, want) {
		t.Errorf("%s: <testsuites> says tests, failures, errors = %v; its suites add up to %v", what, got, want)
	}
}

// platformChecker checks reports in every format against their platforms.
type platformChecker struct {
	schemas map[string]*jsonschema.Schema
	junit   *junitValidator
}

// newPlatformChecker returns a checker of every format; without xmllint
// (outside CI) it says so in the test's log and checks the JUnit reports'
// counts only.
func newPlatformChecker(t testing.TB) *platformChecker {
	t.Helper()
	v, ok := newJUnitValidator(t)
	if !ok {
		t.Log(noXmllint)
	}
	return &platformChecker{schemas: platformSchemas(t), junit: v}
}

// checkResult renders r in every format and checks each against its
// platform.
func (p *platformChecker) checkResult(t testing.TB, name string, r *grading.Result) {
	t.Helper()
	for _, format := range Formats() {
		var out, summary bytes.Buffer
		opt := Options{}
		if format == FormatGitHub {
			opt = Options{Summary: &summary, Rand: fixedRand()}
		}
		if err := Write(&out, format, r, opt); err != nil {
			t.Errorf("%s: %s: %v", name, format, err)
			continue
		}
		p.checkFile(t, name+"/"+format, format, out.Bytes(), r)
		if format == FormatGitHub {
			p.checkFile(t, name+"/github-summary", "github-summary", summary.Bytes(), r)
		}
	}
}

// checkFile checks one report, in format, of the result r (which says what
// the report must say; nil when it is not known).
func (p *platformChecker) checkFile(t testing.TB, what, format string, doc []byte, r *grading.Result) {
	t.Helper()
	switch format {
	case FormatJUnit:
		p.junit.validate(t, what, doc)
	case FormatGradescope, FormatPrairieLearn, FormatExercism, FormatJSON:
		validateJSON(t, what, p.schemas[format], doc)
		platformRules(t, what, format, doc, r)
	case FormatGitHub:
		githubRules(t, what, p.schemas["github-report"], doc, r)
	case "github-summary":
		// GitHub takes up to 1 MiB of job summary a step.
		if len(doc) > 1<<20 {
			t.Errorf("%s: the job summary is %d bytes; GitHub takes at most 1 MiB a step", what, len(doc))
		}
	}
}

// platformRules checks what each JSON platform asks across fields.
func platformRules(t testing.TB, what, format string, doc []byte, r *grading.Result) {
	t.Helper()
	switch format {
	case FormatGradescope:
		gradescopeRules(t, what, doc, r)
	case FormatPrairieLearn:
		prairieLearnRules(t, what, doc, r)
	case FormatExercism:
		exercismRules(t, what, doc, r)
	case FormatJSON:
		jsonReportRules(t, what, doc, r)
	}
}

// gradescopeRules checks Gradescope's results.json: each test's status
// agrees with its points, and the score with the tests and the run.
func gradescopeRules(t testing.TB, what string, doc []byte, r *grading.Result) {
	t.Helper()
	var gs struct {
		Score *float64 `json:"score"`
	}
	if err := json.Unmarshal(doc, &gs); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	gsTests := gradescopeTests(t, what, doc)
	var sum, maxSum float64
	for i, tc := range gsTests {
		if tc.Score > tc.MaxScore {
			t.Errorf("%s: test %d scores %v of %v", what, i+1, tc.Score, tc.MaxScore)
		}
		passed := tc.Score == tc.MaxScore && (r == nil || i < len(r.Checks) && r.Checks[i].Status == grading.StatusPass)
		if (tc.Status == "passed") != passed {
			t.Errorf("%s: test %d is %s with %v of %v points", what, i+1, tc.Status, tc.Score, tc.MaxScore)
		}
		sum, maxSum = sum+tc.Score, maxSum+tc.MaxScore
	}
	if r == nil {
		return
	}
	if !r.Gradable {
		// No score and no tests: Gradescope then records no grade, rather than a zero.
		if gs.Score != nil || len(gsTests) != 0 {
			t.Errorf("%s: an ungradable run has score %v and %d tests; want neither, so that Gradescope records no grade", what, gs.Score, len(gsTests))
		}
		return
	}
	// A top-level score overrides the tests' sum: they must agree.
	if gs.Score == nil || *gs.Score != sum || *gs.Score != float64(r.Score) || maxSum != float64(r.MaxScore) || len(gsTests) != len(r.Checks) {
		t.Errorf("%s: score %v, tests summing to %v of %v in %d tests; want %d of %d in %d", what, gs.Score, sum, maxSum, len(gsTests), r.Score, r.MaxScore, len(r.Checks))
	}
}

// prairieLearnRules checks PrairieLearn's results.json: points within
// bounds, the score and gradable as the run says.
func prairieLearnRules(t testing.TB, what string, doc []byte, r *grading.Result) {
	t.Helper()
	var pl plShape
	if err := json.Unmarshal(doc, &pl); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	var pts, maxPts int
	for _, tc := range pl.Tests {
		if tc.Points > tc.MaxPoints {
			t.Errorf("%s: test %s has %d of %d points", what, tc.Name, tc.Points, tc.MaxPoints)
		}
		pts, maxPts = pts+tc.Points, maxPts+tc.MaxPoints
	}
	if r == nil {
		return
	}
	if pl.Gradable != r.Gradable {
		t.Errorf("%s: gradable %v, want %v", what, pl.Gradable, r.Gradable)
	}
	if r.Gradable && (pl.Score == nil || *pl.Score != fraction(r) || pts != r.Score || maxPts != r.MaxScore) {
		t.Errorf("%s: score %v, tests %d of %d points; want %v, %d of %d", what, pl.Score, pts, maxPts, fraction(r), r.Score, r.MaxScore)
	}
	if !r.Gradable && (pl.Score != nil || len(pl.FormatErrors) == 0) {
		t.Errorf("%s: an ungradable run has score %v and format_errors %q; want no score (no attempt used) and the problem", what, pl.Score, pl.FormatErrors)
	}
}

// exercismRules checks Exercism's results.json: the status agrees with the
// tests, outputs and size within Exercism's limits.
func exercismRules(t testing.TB, what string, doc []byte, r *grading.Result) {
	t.Helper()
	var ex exShape
	if err := json.Unmarshal(doc, &ex); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	var statuses []string
	for _, tc := range ex.Tests {
		statuses = append(statuses, tc.Status)
		if n := utf8.RuneCountInString(tc.Output); n > 500 {
			t.Errorf("%s: test %q has an output of %d characters; Exercism takes 500", what, tc.Name, n)
		}
	}
	allPass := !slices.ContainsFunc(statuses, func(s string) bool { return s != "pass" })
	switch ex.Status {
	case "pass":
		if !allPass {
			t.Errorf("%s: status pass with tests %v", what, statuses)
		}
	case "fail":
		if allPass {
			t.Errorf("%s: status fail, but every test passed", what)
		}
	case "error":
		if ex.Message == nil || *ex.Message == "" {
			t.Errorf("%s: status error without a message", what)
		}
	}
	if len(doc) > exercismLimit {
		t.Errorf("%s: %d bytes; Exercism takes %d", what, len(doc), exercismLimit)
	}
	if r != nil && (ex.Status == "error") != !r.Gradable {
		t.Errorf("%s: status %s for a run whose gradable is %v", what, ex.Status, r.Gradable)
	}
}

// jsonReportRules checks the JSON report: each check's points within
// bounds and the score their sum (r is not needed).
func jsonReportRules(t testing.TB, what string, doc []byte, r *grading.Result) {
	t.Helper()
	var got grading.Result
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	var pts, maxPts int
	for _, c := range got.Checks {
		if c.Points > c.MaxPoints || (c.Status != grading.StatusPass && c.Points != 0) {
			t.Errorf("%s: check %s is %s with %d of %d points", what, c.ID, c.Status, c.Points, c.MaxPoints)
		}
		pts, maxPts = pts+c.Points, maxPts+c.MaxPoints
	}
	if got.Score != pts || got.MaxScore != maxPts {
		t.Errorf("%s: score %d of %d, but the checks add up to %d of %d", what, got.Score, got.MaxScore, pts, maxPts)
	}
}

// gsScored is one test of Gradescope's results.json, its numbers as numbers.
type gsScored struct {
	Score    float64 `json:"score"`
	MaxScore float64 `json:"max_score"`
	Status   string  `json:"status"`
}

func gradescopeTests(t testing.TB, what string, doc []byte) []gsScored {
	t.Helper()
	var gs struct {
		Tests []gsScored `json:"tests"`
	}
	if err := json.Unmarshal(doc, &gs); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	return gs.Tests
}

// workflowCommand is a line of a GitHub Actions log that the runner takes
// as a command: ::name properties::data.
var workflowCommand = regexp.MustCompile(`^::([a-z-]+)(?: ([^:]*))?::(.*)$`)

// annotationProperty is one property of an annotation: a documented key,
// and a value in which : , CR and LF are escaped.
var annotationProperty = regexp.MustCompile(`^(title|file|col|endColumn|line|endLine)=[^:,\r\n]*$`)

// githubRules checks the github format's log: every workflow command in it
// is one GitHub documents, well formed, within its limits, and the two
// notices Classroom reads are there exactly when the run was gradable, and
// agree.
func githubRules(t testing.TB, what string, reportSchema *jsonschema.Schema, doc []byte, r *grading.Result) {
	t.Helper()
	counts := map[string]int{}
	var complete, report []string
	for i, line := range strings.Split(strings.TrimSuffix(string(doc), "\n"), "\n") {
		m := workflowCommand.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, props, data := m[1], m[2], m[3]
		switch name {
		case "error", "warning", "notice":
			counts[name]++
			var title string
			if props != "" {
				for _, p := range strings.Split(props, ",") {
					if !annotationProperty.MatchString(p) {
						t.Errorf("%s: line %d: annotation property %q is not one GitHub documents, or is not escaped", what, i+1, p)
					}
					if v, ok := strings.CutPrefix(p, "title="); ok {
						title = v
					}
				}
			}
			if len(title) > 255 {
				t.Errorf("%s: line %d: an annotation title of %d bytes; GitHub takes 255", what, i+1, len(title))
			}
			if name == "notice" && title == "Autograding complete" {
				complete = append(complete, data)
			}
			if name == "notice" && title == "Autograding report" {
				report = append(report, data)
			}
		case "group", "endgroup", "stop-commands":
		default:
			if !strings.HasPrefix(name, "lab-") || data != "" {
				t.Errorf("%s: line %d: %q is not a workflow command the lab writes", what, i+1, line)
			}
		}
	}
	for kind, n := range counts {
		if n > githubErrorsMax {
			t.Errorf("%s: %d %s annotations; GitHub keeps 10 a step and drops the rest", what, n, kind)
		}
	}
	if r == nil {
		return
	}
	if !r.Gradable {
		if len(complete)+len(report) != 0 {
			t.Errorf("%s: an ungradable run gives Classroom points: %q %q", what, complete, report)
		}
		return
	}
	if len(complete) != 1 || len(report) != 1 {
		t.Fatalf("%s: %d Autograding complete and %d Autograding report notices; want one of each", what, len(complete), len(report))
	}
	validateJSON(t, what+" (Autograding report)", reportSchema, []byte(report[0]))
	var points struct{ TotalPoints, MaxPoints int }
	if err := json.Unmarshal([]byte(report[0]), &points); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	want := "Points " + strconv.Itoa(r.Score) + "/" + strconv.Itoa(r.MaxScore)
	if complete[0] != want || points.TotalPoints != r.Score || points.MaxPoints != r.MaxScore {
		t.Errorf("%s: notices %q and %q; want %q and %d of %d", what, complete[0], report[0], want, r.Score, r.MaxScore)
	}
	var annotated []string
	for _, line := range strings.Split(string(doc), "\n") {
		if id, ok := strings.CutPrefix(line, "::error title=Check "); ok {
			annotated = append(annotated, strings.SplitN(id, " ", 2)[0])
		}
	}
	failed := r.Failed()
	if len(failed) > githubErrorsMax {
		failed = failed[:githubErrorsMax-1]
	}
	if !slices.Equal(annotated, failed) {
		t.Errorf("%s: error annotations for checks %q; want %q", what, annotated, failed)
	}
}

// manyFailures is a lesson-3-sized result in which twelve checks fail: more
// than the ten error annotations GitHub keeps a step.
func manyFailures() *grading.Result {
	r := &grading.Result{Lesson: 3, Gradable: true, MaxScore: 15,
		Outcome: grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: "12 checks failed"}, DurationMS: 4321}
	for i := range 15 {
		c := grading.CheckResult{ID: fmt.Sprintf("check.%02d", i+1), Title: "does thing " + strconv.Itoa(i+1), Status: grading.StatusFail, MaxPoints: 1,
			Message: "It did not.", Expected: "a thing", Actual: "nothing", Rule: "rule " + strconv.Itoa(i+1)}
		if i < 2 {
			c.Status, c.Points, c.Message, c.Expected, c.Actual = grading.StatusPass, 1, "", "", ""
		}
		if i == 14 {
			c.Status, c.Message, c.Expected, c.Actual = grading.StatusSkip, "Not judged: an earlier step timed out.", "", ""
		}
		r.Checks = append(r.Checks, c)
	}
	r.Score = 2
	return r
}

// classUngradable is a result as grade-class makes it for a submission that
// could not be built: no transcript, no time, the build's output in the
// problem.
func classUngradable() *grading.Result {
	r := &grading.Result{Lesson: 2, Gradable: false, MaxScore: 3,
		Problem:    "The build step exited with status 1. Its output:\nmain.go:1:1: expected 'package', found oops\n::error::from the build",
		Outcome:    grading.Outcome{Kind: grading.OutcomeBuildFailed, Detail: "The build step exited with status 1."},
		Submission: &grading.Submission{Name: "bo", Hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}}
	for _, id := range []string{"tools.list", "tools.call", "errors.unknown-tool"} {
		r.Checks = append(r.Checks, grading.CheckResult{ID: id, Title: id, Status: grading.StatusSkip, MaxPoints: 1,
			Message: "Not judged: the submission could not be graded (build-failed)."})
	}
	return r
}

// TestPlatformFormats: every report of the test results (passing, failing
// with skipped checks, ungradable, one with more failures than GitHub
// annotates, one as grade-class makes for a build that failed) meets what
// its platform documents. TestGoldenLessonReports and
// TestClassReportsMeetTheirPlatforms do the same for real gradings.
func TestPlatformFormats(t *testing.T) {
	p := newPlatformChecker(t)
	for _, c := range []struct {
		name   string
		result func() *grading.Result
	}{
		{"pass", passing}, {"fail", failing}, {"ungradable", ungradable},
		{"many-failures", manyFailures}, {"class-ungradable", classUngradable}, {"huge", hugeResult},
	} {
		p.checkResult(t, c.name, c.result())
	}
}

// The schemas and rules catch what the platforms refuse: each broken
// document below fails, for the reason given.
func TestPlatformSchemasRefuse(t *testing.T) {
	schemas := platformSchemas(t)
	for _, c := range []struct {
		format, why, doc string
	}{
		{FormatGradescope, "a status Gradescope does not know", `{"score":1,"tests":[{"score":1,"max_score":1,"status":"skipped"}]}`},
		{FormatGradescope, "an output format Gradescope does not know", `{"score":1,"output_format":"markdown","tests":[]}`},
		{FormatGradescope, "no score anywhere", `{"tests":[{"max_score":1,"status":"failed"}]}`},
		{FormatGradescope, "a misspelt key", `{"score":1,"test":[]}`},
		{FormatPrairieLearn, "a score over 1", `{"gradable":true,"score":7,"tests":[]}`},
		{FormatPrairieLearn, "a gradable result without a score", `{"gradable":true,"message":"m"}`},
		{FormatPrairieLearn, "tests with points as text", `{"score":1,"tests":[{"name":"a","points":"1","max_points":1}]}`},
		{FormatExercism, "version 4", `{"version":4,"status":"pass","tests":[]}`},
		{FormatExercism, "status error without a message", `{"version":3,"status":"error","tests":[]}`},
		{FormatExercism, "a test status of skip", `{"version":3,"status":"fail","tests":[{"name":"a","status":"skip","test_code":"x"}]}`},
		{FormatExercism, "task_id in version 2", `{"version":2,"status":"pass","tests":[{"name":"a","status":"pass","task_id":1}]}`},
		{FormatExercism, "an output of 501 characters", `{"version":3,"status":"fail","tests":[{"name":"a","status":"fail","output":"` + strings.Repeat("é", 501) + `"}]}`},
		{FormatJSON, "a verdict the lab does not have", `{"lesson":1,"gradable":true,"score":0,"max_score":1,"outcome":{"kind":"passed","detail":""},"checks":[{"id":"a","title":"","status":"passed","points":0,"max_points":1,"message":""}],"transcript":[],"duration_ms":1}`},
		{FormatJSON, "an ungradable result without its problem", `{"lesson":1,"gradable":false,"score":0,"max_score":1,"outcome":{"kind":"timeout","detail":""},"checks":[],"transcript":[],"duration_ms":1}`},
		{"github-report", "points as text", `{"totalPoints":"7","maxPoints":10}`},
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.why, err)
		}
		if err := schemas[c.format].Validate(inst); err == nil {
			t.Errorf("%s schema accepts %s: %s", c.format, c.why, c.doc)
		}
	}
}

// The JUnit report of a run with skipped checks validates against
// junit-10.xsd, and the root element has no skipped attribute, which the
// schema refuses there (as xmllint shows on a document that has one).
func TestJUnitSchema(t *testing.T) {
	v, ok := newJUnitValidator(t)
	if !ok {
		t.Skip(noXmllint)
	}
	for _, fx := range fixtures {
		out, _ := render(t, FormatJUnit, fx.result(), Options{})
		v.validate(t, fx.name, out)
	}
	out, _ := render(t, FormatJUnit, failing(), Options{})
	bad := bytes.Replace(out, []byte(`<testsuites name="lab" `), []byte(`<testsuites name="lab" skipped="1" `), 1)
	if bytes.Equal(bad, out) {
		t.Fatalf("the report does not start as expected:\n%s", out[:200])
	}
	file := filepath.Join(t.TempDir(), "bad.xml")
	if err := os.WriteFile(file, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	msg, err := exec.CommandContext(ctx, v.xmllint, "--noout", "--nonet", "--schema", v.schema, file).CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "attribute 'skipped': The attribute 'skipped' is not allowed") {
		t.Errorf("xmllint on a <testsuites skipped=…>: err %v, output %s; want the schema to refuse it", err, msg)
	}
}

// More failed checks than GitHub annotates a step: nine get their own
// annotation, the tenth names the other three, and the log's report still
// has every one.
func TestGitHubAnnotationLimit(t *testing.T) {
	out, _ := render(t, FormatGitHub, manyFailures(), Options{})
	var errorsSeen []string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "::error title="); ok {
			errorsSeen = append(errorsSeen, rest)
		}
	}
	if len(errorsSeen) != githubErrorsMax {
		t.Fatalf("%d error annotations, want %d:\n%s", len(errorsSeen), githubErrorsMax, strings.Join(errorsSeen, "\n"))
	}
	for i, a := range errorsSeen[:9] {
		if want := fmt.Sprintf("Check check.%02d failed::", i+3); !strings.HasPrefix(a, want) {
			t.Errorf("annotation %d = %q, want it to start %q", i+1, a, want)
		}
	}
	want := "3 more checks failed::These checks failed too: check.12, check.13, check.14. GitHub shows at most 10 error annotations a step, so they have none of their own: " +
		"what each one expected and what it got is in the report at the top of this step's log, and in the job summary."
	if errorsSeen[9] != want {
		t.Errorf("last annotation\n got %q\nwant %q", errorsSeen[9], want)
	}
	for _, id := range []string{"check.12", "check.13", "check.14"} {
		if !bytes.Contains(out, []byte("FAIL "+id)) {
			t.Errorf("the log's report lacks FAIL %s", id)
		}
	}
	// Not gradable: "Could not grade" takes one of the ten.
	r := manyFailures()
	r.Gradable, r.Problem, r.Outcome.Kind = false, "The server stopped answering.", grading.OutcomeTimeout
	out, _ = render(t, FormatGitHub, r, Options{})
	if n := bytes.Count(out, []byte("\n::error title=")); n != githubErrorsMax || !bytes.Contains(out, []byte("::error title=4 more checks failed::These checks failed too: check.11, check.12, check.13, check.14.")) {
		t.Errorf("ungradable with 12 failures: %d error annotations, want 10 with the last four named:\n%s", n, out)
	}
}

// PlatformChecker checks reports against what their platforms document,
// for the tests of package report_test (which grade a class).
type PlatformChecker struct{ p *platformChecker }

// NewPlatformChecker returns a PlatformChecker; without xmllint (outside
// CI) it checks the JUnit reports' counts only, and says so in the log.
func NewPlatformChecker(t testing.TB) *PlatformChecker {
	t.Helper()
	return &PlatformChecker{p: newPlatformChecker(t)}
}

// CheckResult checks r's report in every format.
func (c *PlatformChecker) CheckResult(t testing.TB, name string, r *grading.Result) {
	t.Helper()
	c.p.checkResult(t, name, r)
}

// CheckFile checks one report of r in format ("github-summary" for the
// github format's job summary).
func (c *PlatformChecker) CheckFile(t testing.TB, what, format string, doc []byte, r *grading.Result) {
	t.Helper()
	c.p.checkFile(t, what, format, doc, r)
}

// BuildPrograms builds the known-bad and correct programs of the lesson
// goldens (student, helpdesk, client, and the lab for lesson 3's relay)
// into dir, and returns each one's path by name.
func BuildPrograms(t *testing.T, dir string) map[string]string {
	t.Helper()
	return buildGolden(t, dir)
}
