package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lessons"
)

// testScale stretches the CI files' deadlines on this machine, which runs
// several engineers' tests at once (the starters' own tests use 4 too): the
// checks a starter passes do not depend on it, only a slow start would.
const testScale = "4"

type ghWorkflow struct {
	On   map[string]any   `yaml:"on"`
	Jobs map[string]ghJob `yaml:"jobs"`
}

// ghJob is one job of a GitHub workflow, as far as the tests read it.
type ghJob struct {
	RunsOn string            `yaml:"runs-on"`
	Env    map[string]string `yaml:"env"`
	Steps  []struct {
		ID   string         `yaml:"id"`
		Name string         `yaml:"name"`
		Uses string         `yaml:"uses"`
		With map[string]any `yaml:"with"`
		Run  string         `yaml:"run"`
	} `yaml:"steps"`
}

type glJob struct {
	Image        string            `yaml:"image"`
	Variables    map[string]string `yaml:"variables"`
	BeforeScript []string          `yaml:"before_script"`
	Script       []string          `yaml:"script"`
	Artifacts    struct {
		When    string            `yaml:"when"`
		Reports map[string]string `yaml:"reports"`
	} `yaml:"artifacts"`
}

// statedScore reads the score a starter's README gives it as shipped: its
// own table's "**Score** | **X of Y**" row, or the lesson's starters table
// "| as shipped | X/Y |".
func statedScore(t *testing.T, m *lessons.Manifest, lang string) (int, int) {
	t.Helper()
	dir := filepath.Join("..", "..", "lessons", m.Dir, "starter")
	for _, c := range []struct{ file, re string }{
		{filepath.Join(dir, lang, "README.md"), `\*\*Score\*\* \| \*\*(\d+) of (\d+)\*\*`},
		{filepath.Join(dir, "README.md"), `(?m)^\| as shipped \| (\d+)/(\d+) \|`},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if sm := regexp.MustCompile(c.re).FindStringSubmatch(string(data)); sm != nil {
			x, _ := strconv.Atoi(sm[1])
			y, _ := strconv.Atoi(sm[2])
			return x, y
		}
	}
	t.Fatalf("no README of lesson %d's %s starter states its score", m.Number, lang)
	return 0, 0
}

// ciStep is the grading step of one CI's configuration, to run as CI
// would (see runCI), and what to check of its exit status and output.
type ciStep struct {
	name   string
	dir    string
	script string
	vars   map[string]string
	extra  []string
	check  func(t *testing.T, code int, out string)
}

// runCI runs shell lines as CI would, in dir, with the freshly built lab
// first on PATH, and returns the exit status and output.
func runCI(dir, labDir, script string, vars map[string]string, extra ...string) (int, string, error) {
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+labDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "LAB_TIME_SCALE="+testScale)
	cmd.Env = append(cmd.Env, extra...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out), nil
	} else if err != nil {
		return 0, string(out), fmt.Errorf("running the CI step: %w", err)
	}
	return 0, string(out), nil
}

// runSteps runs the CI steps one after the other, each in its own
// folder, and checks each one's exit status and output. Not at once: a
// JavaScript starter reads each chunk as a line, and on a machine loaded
// by more grades than CI runs, node's loop can fall behind the lesson's
// 25 ms between chunks and read two as one, which costs it answers.once
// (see the issue notes); one step at a time keeps this test's own load
// to what a course's CI has.
func runSteps(t *testing.T, labDir string, steps []ciStep) {
	t.Helper()
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.name
	}
	// At once: each step grades a starter, which mostly waits on its
	// deadline failures.
	testkit.Concurrently(t, len(steps), names, func(t *testing.T, i int) {
		s := steps[i]
		code, out, err := runCI(s.dir, labDir, s.script, s.vars, s.extra...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, out)
		}
		s.check(t, code, out)
	})
}

// TestAssignmentCI writes every lesson's assignment in every language,
// parses its CI files with a YAML library, runs their grading steps here
// with a freshly built lab, and checks each starter gets the score its
// README states, in GitHub's Points line and job summary and in GitLab's
// JUnit report.
func TestAssignmentCI(t *testing.T) {
	// Its own lab and folders: its starters' grades, which mostly wait on
	// the lessons' deadlines, overlap the other tests that do.
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the lab and grades six starters twice")
	}
	labDir, _, _ := labForClass(t)
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	type starter struct {
		m    *lessons.Manifest
		lang string
	}
	var starters []starter
	var names []string
	for _, m := range all {
		for _, lang := range lessons.StarterLanguages() {
			if _, err := m.Starter(lang); err != nil {
				continue
			}
			starters = append(starters, starter{m, lang})
			names = append(names, fmt.Sprintf("lesson%d-%s", m.Number, lang))
		}
	}
	if len(starters) < 6 {
		t.Fatalf("only %d starters: lessons 1 and 2 each have three", len(starters))
	}
	// Every starter at once, not two at a time as t.Parallel would on
	// two cores: their grades mostly wait.
	testkit.Concurrently(t, len(starters), names, func(t *testing.T, i int) {
		testAssignment(t, starters[i].m, starters[i].lang, labDir)
	})
}

// ciWant is what grading an assignment's starter in CI must give: the
// lesson it pins, the score its README states and the exit that follows.
type ciWant struct {
	lesson, score, max, exit int
}

// testAssignment writes the assignment of lesson m in lang twice, once for
// each CI, and checks the files, the CI configuration and what its grading
// step gives against the score the starter's README states.
func testAssignment(t *testing.T, m *lessons.Manifest, lang, labDir string) {
	want := ciWant{lesson: m.Number}
	want.score, want.max = statedScore(t, m, lang)
	if want.score < want.max {
		want.exit = 1
	}
	var steps []ciStep
	for _, ci := range []string{"github", "gitlab"} {
		dir := filepath.Join(t.TempDir(), "repo")
		if code, _, errOut := lab(t, "assignment", "--lesson", strconv.Itoa(m.Number), "--lang", lang, "--lab-version", "v0.9.1", dir); code != 0 {
			t.Fatalf("lab assignment: exit %d: %s", code, errOut)
		}
		checkAssignmentFiles(t, dir)
		switch ci {
		case "github":
			steps = append(steps, checkGitHubCI(t, dir, want))
		case "gitlab":
			steps = append(steps, checkGitLabCI(t, dir, want))
		}
	}
	runSteps(t, labDir, steps)
}

// checkAssignmentFiles checks the files of the assignment in dir: the run
// script, executable, and a README that says how to install the pinned lab
// and names the CI variable LAB_VERSION.
func checkAssignmentFiles(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"run", "README.md", "STARTER.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the assignment has no %s", f)
		}
	}
	if info, err := os.Stat(filepath.Join(dir, "run")); err != nil || info.Mode()&0o111 == 0 {
		t.Errorf("run is not executable: %v", info)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !strings.Contains(string(readme), "go install github.com/mcplab/mcplab/cmd/lab@v0.9.1") {
		t.Errorf("README.md does not say how to install the pinned lab:\n%s", readme)
	}
	if strings.Contains(string(readme), "LAB_v") || strings.Count(string(readme), "`LAB_VERSION`") != 2 {
		t.Errorf("README.md does not name the CI variable LAB_VERSION where it should:\n%s", readme)
	}
}

// checkGitHubCI checks the assignment's GitHub workflow: a grade job that
// checks out, sets up Go and installs the pinned lab; it returns its
// grading step, which, run, must exit as the score says, print the "Points
// X/Y" line GitHub Classroom reads and write the Markdown report to the
// job summary.
func checkGitHubCI(t *testing.T, dir string, want ciWant) ciStep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "grade.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("grade.yml is not YAML: %v\n%s", err, data)
	}
	job, ok := wf.Jobs["grade"]
	if !ok || job.RunsOn == "" || wf.On == nil {
		t.Fatalf("grade.yml has no grade job with runs-on and triggers:\n%s", data)
	}
	if job.Env["LAB_VERSION"] != "v0.9.1" || job.Env["LAB_LESSON"] != strconv.Itoa(want.lesson) {
		t.Errorf("grade.yml env = %v", job.Env)
	}
	grade := checkGitHubSteps(t, job)
	if grade == "" {
		t.Fatalf("grade.yml has no step with id grade:\n%s", data)
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	return ciStep{name: "GitHub grading step", dir: dir, script: grade, vars: job.Env,
		extra: []string{"GITHUB_STEP_SUMMARY=" + summary, "GITHUB_ACTIONS=true"},
		check: func(t *testing.T, code int, out string) {
			if code != want.exit {
				t.Errorf("GitHub grading step exited %d, want %d:\n%s", code, want.exit, out)
			}
			if wantLine := fmt.Sprintf("::notice title=Autograding complete::Points %d/%d\n", want.score, want.max); !strings.Contains(out, wantLine) {
				t.Errorf("GitHub grading step did not print %q:\n%s", wantLine, out)
			}
			md, _ := os.ReadFile(summary)
			if !strings.Contains(string(md), "| Result | Check | Points |") {
				t.Errorf("the job summary has no Markdown report:\n%s", md)
			}
		}}
}

// checkGitHubSteps checks that the grade job's steps check out, set up Go
// and install the pinned lab, and returns the script of its step "grade".
func checkGitHubSteps(t *testing.T, job ghJob) (grade string) {
	t.Helper()
	var install string
	uses := map[string]bool{}
	for _, s := range job.Steps {
		uses[strings.Split(s.Uses, "@")[0]] = true
		if s.ID == "grade" {
			grade = s.Run
		}
		if strings.Contains(s.Run, "go install") {
			install = s.Run
		}
	}
	if !uses["actions/checkout"] || !uses["actions/setup-go"] {
		t.Errorf("grade.yml does not check out and set up Go: %v", uses)
	}
	if !strings.Contains(install, "github.com/mcplab/mcplab/cmd/lab@${LAB_VERSION}") {
		t.Errorf("grade.yml does not install the pinned lab: %q", install)
	}
	return grade
}

// checkGitLabCI checks the assignment's .gitlab-ci.yml: a grade job with an
// image that installs the pinned lab and keeps the JUnit report; it
// returns its script, which, run, must exit as the score says and write a
// report.xml that scores what the README states.
func checkGitLabCI(t *testing.T, dir string, want ciWant) ciStep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var jobs map[string]glJob
	if err := yaml.Unmarshal(data, &jobs); err != nil {
		t.Fatalf(".gitlab-ci.yml is not YAML: %v\n%s", err, data)
	}
	job, ok := jobs["grade"]
	if !ok || job.Image == "" || len(job.Script) == 0 {
		t.Fatalf(".gitlab-ci.yml has no grade job with an image and a script:\n%s", data)
	}
	if job.Artifacts.Reports["junit"] != "report.xml" || job.Artifacts.When != "always" {
		t.Errorf(".gitlab-ci.yml does not keep the JUnit report: %+v", job.Artifacts)
	}
	if !strings.Contains(strings.Join(job.BeforeScript, "\n"), "github.com/mcplab/mcplab/cmd/lab@${LAB_VERSION}") {
		t.Errorf(".gitlab-ci.yml does not install the pinned lab: %q", job.BeforeScript)
	}
	return ciStep{name: "GitLab script", dir: dir, script: strings.Join(job.Script, "\n"), vars: job.Variables,
		check: func(t *testing.T, code int, out string) {
			if code != want.exit {
				t.Errorf("GitLab script exited %d, want %d:\n%s", code, want.exit, out)
			}
			got := junitProperties(t, filepath.Join(dir, "report.xml"))
			if got["score"] != strconv.Itoa(want.score) || got["max_score"] != strconv.Itoa(want.max) {
				report, _ := os.ReadFile(filepath.Join(dir, "report.xml"))
				t.Errorf("report.xml scores %s/%s, the README states %d/%d:\n%s", got["score"], got["max_score"], want.score, want.max, report)
			}
		}}
}

// junitProperties reads the JUnit report at path, which must hold one
// suite, and returns the properties of that suite by name.
func junitProperties(t *testing.T, path string) map[string]string {
	t.Helper()
	x, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &suites); err != nil || len(suites.Suites) != 1 {
		t.Fatalf("report.xml is not one JUnit suite: %v\n%s", err, x)
	}
	got := map[string]string{}
	for _, p := range suites.Suites[0].Props {
		got[p.Name] = p.Value
	}
	return got
}

func TestAssignmentRefuses(t *testing.T) {
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(empty, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lang", "go", "--lab-version", "v1.0.0", full}, "is not empty"},
		{[]string{"--lang", "go", "--lab-version", "v1.0.0", link}, "is a link"},
		{[]string{"--lang", "go", "--lab-version", "v1.0.0", file}, "is a file"},
		{[]string{"--lang", "cobol", "--lab-version", "v1.0.0", filepath.Join(tmp, "a")}, "-lang must be one of go, python, javascript"},
		{[]string{"--lang", "go", filepath.Join(tmp, "b")}, "pass --lab-version"},
		{[]string{"--lang", "go", "--lab-version", "v1; rm -rf /", filepath.Join(tmp, "c")}, "not a version go install can fetch"},
		{[]string{"--lesson", "99", "--lang", "go", "--lab-version", "v1.0.0", filepath.Join(tmp, "d")}, "there is no lesson 99"},
		{[]string{"--lang", "go", "--lab-version", "v1.0.0"}, "name one folder"},
	} {
		code, _, errOut := lab(t, append([]string{"assignment"}, c.args...)...)
		if code != exitCannot || !strings.Contains(errOut, c.want) {
			t.Errorf("lab assignment %q: exit %d, %q; want exit 2 saying %q", c.args, code, errOut, c.want)
		}
	}
	if data, err := os.ReadFile(filepath.Join(full, "notes.txt")); err != nil || string(data) != "mine\n" {
		t.Errorf("the non-empty folder was touched: %q %v", data, err)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("writing through the link filled %s", empty)
	}
	for _, d := range []string{"a", "b", "c", "d"} {
		if _, err := os.Lstat(filepath.Join(tmp, d)); err == nil {
			t.Errorf("a refused assignment left %s behind", d)
		}
	}
	// An empty folder is fine.
	if code, _, errOut := lab(t, "assignment", "--lang", "python", "--lab-version", "v1.0.0", empty); code != 0 {
		t.Errorf("lab assignment into an empty folder: exit %d: %s", code, errOut)
	}
}
