package examples

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The GitHub Actions workflow, as far as the example uses it; decoded
// strictly like the manifests.
type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]ghJob  `yaml:"jobs"`
}

type ghJob struct {
	Name           string            `yaml:"name"`
	Needs          string            `yaml:"needs"`
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Env            map[string]string `yaml:"env"`
	Strategy       *struct {
		FailFast *bool            `yaml:"fail-fast"`
		Matrix   map[string][]int `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []ghStep `yaml:"steps"`
}

type ghStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

// matrixRef is how the workflow names the shard of a matrix job.
const matrixRef = "${{ matrix.shard }}"

// installStep is the step that installs the lab; the run on this machine
// puts the lab built from the tree on PATH instead.
const installStep = "Install the lab"

// stepUsing returns the job's one step that uses action (name@version).
func stepUsing(t *testing.T, j ghJob, action string) ghStep {
	t.Helper()
	var found []ghStep
	for _, s := range j.Steps {
		if name, _, _ := strings.Cut(s.Uses, "@"); name == action {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("job %q has %d steps using %s, want 1", j.Name, len(found), action)
	}
	return found[0]
}

// runSteps returns the job's steps with a run script, but the install.
func runSteps(j ghJob) []ghStep {
	var out []ghStep
	for _, s := range j.Steps {
		if s.Run != "" && s.Name != installStep {
			out = append(out, s)
		}
	}
	return out
}

var (
	shardArg = regexp.MustCompile(`--shard "` + regexp.QuoteMeta(matrixRef) + `/([0-9]+)"`)
	outArg   = regexp.MustCompile(`--out "([^"]+)"`)
	pinned   = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)
)

// ghPlan is what the structure test learnt of the workflow, for the run.
type ghPlan struct {
	wf           workflow
	shards       []int
	upload       string // the shard's upload path, with matrixRef
	uploadName   string // the shard's artifact name, with matrixRef
	downloadPath string
}

// checkWorkflow checks the workflow's structure and returns what the run
// needs.
func checkWorkflow(t *testing.T) ghPlan {
	t.Helper()
	wf := decodeOne[workflow](t, filepath.Join("github-actions", "grade-class.yml"))
	grade, merge := checkWorkflowJobs(t, wf)
	shards := checkShardMatrix(t, grade)
	gradeRun, out := checkGradeStep(t, grade, len(shards))

	// Every shard uploaded under a name of its own, every one downloaded.
	up := stepUsing(t, grade, "actions/upload-artifact")
	if !strings.Contains(up.With["path"], matrixRef) || !strings.Contains(up.With["name"], matrixRef) || up.With["if-no-files-found"] != "error" {
		t.Errorf("the shard's upload: %v; want a path and a name with %s, and if-no-files-found: error", up.With, matrixRef)
	}
	if up.With["path"] != out && !strings.Contains(gradeRun, fmt.Sprintf("cp -R %q %q", out, up.With["path"])) {
		t.Errorf("the shard's upload takes %s, but the lab wrote %s (and the step does not copy it there)", up.With["path"], out)
	}
	dpath := checkMergeSteps(t, merge, up.With["name"], shards)
	return ghPlan{wf: wf, shards: shards, upload: up.With["path"], uploadName: up.With["name"], downloadPath: dpath}
}

// checkWorkflowJobs checks the workflow starts by hand, pins the lab's
// version and has two jobs, grade and merge, each installing that lab with
// every action pinned; it returns the two jobs.
func checkWorkflowJobs(t *testing.T, wf workflow) (grade, merge ghJob) {
	t.Helper()
	if _, ok := wf.On["workflow_dispatch"]; !ok {
		t.Error("the workflow cannot be started by hand (no workflow_dispatch)")
	}
	if !pinned.MatchString(wf.Env["LAB_VERSION"]) {
		t.Errorf("LAB_VERSION %q is not a pinned release: the shards and the merge must be the same lab", wf.Env["LAB_VERSION"])
	}
	grade, ok1 := wf.Jobs["grade"]
	merge, ok2 := wf.Jobs["merge"]
	if !ok1 || !ok2 || len(wf.Jobs) != 2 {
		t.Fatalf("jobs %v: want grade and merge", wf.Jobs)
	}
	for name, j := range wf.Jobs {
		for _, s := range j.Steps {
			if s.Uses != "" && !strings.Contains(s.Uses, "@") {
				t.Errorf("job %s: %s is not pinned to a version", name, s.Uses)
			}
			if s.Name == installStep && !strings.Contains(s.Run, `go install "github.com/mcplab/mcplab/cmd/lab@${LAB_VERSION}"`) {
				t.Errorf("job %s installs %q, not the pinned lab", name, s.Run)
			}
		}
		if !slices.ContainsFunc(j.Steps, func(s ghStep) bool { return s.Name == installStep }) {
			t.Errorf("job %s does not install the lab", name)
		}
	}
	return grade, merge
}

// checkShardMatrix checks the grade job's matrix: shards 1 to N (2 or
// more), none cancelled when another fails; it returns the shards.
func checkShardMatrix(t *testing.T, grade ghJob) []int {
	t.Helper()
	if grade.Strategy == nil || grade.Strategy.FailFast == nil || *grade.Strategy.FailFast {
		t.Error("grade: want fail-fast: false, so one failed shard does not cancel the others")
	}
	var shards []int
	if grade.Strategy != nil {
		shards = grade.Strategy.Matrix["shard"]
	}
	if len(shards) < 2 {
		t.Fatalf("matrix shards %v: want 2 or more", shards)
	}
	for i, k := range shards {
		if k != i+1 {
			t.Fatalf("matrix shards %v: want 1 to %d in order", shards, len(shards))
		}
	}
	return shards
}

// checkGradeStep checks the grade step grades shard K/n into a folder per
// shard, and returns its script and that folder (with matrixRef).
func checkGradeStep(t *testing.T, grade ghJob, n int) (gradeRun, out string) {
	t.Helper()
	for _, s := range runSteps(grade) {
		if strings.Contains(s.Run, "lab grade-class") {
			gradeRun = s.Run
		}
	}
	m := shardArg.FindAllStringSubmatch(gradeRun, -1)
	if len(m) != 1 || m[0][1] != fmt.Sprint(n) {
		t.Fatalf("the grade step's --shard %q: want one --shard \"%s/%d\"", m, matrixRef, n)
	}
	o := outArg.FindAllStringSubmatch(gradeRun, -1)
	if len(o) != 1 || !strings.Contains(o[0][1], matrixRef) {
		t.Fatalf("the grade step's --out %q: want one folder per shard, named by %s", o, matrixRef)
	}
	return gradeRun, o[0][1]
}

// checkMergeSteps checks the merge job waits for every shard, downloads
// each shard's artifact (uploadName with matrixRef) into a folder of its
// own, merges every shard's folder in order and nothing else, and uploads
// the merge; it returns the download's path.
func checkMergeSteps(t *testing.T, merge ghJob, uploadName string, shards []int) string {
	t.Helper()
	if merge.Needs != "grade" {
		t.Errorf("merge needs %q, want grade: it must wait for every shard", merge.Needs)
	}
	down := stepUsing(t, merge, "actions/download-artifact")
	pattern, dpath := down.With["pattern"], down.With["path"]
	if pattern == "" || dpath == "" || down.With["merge-multiple"] == "true" {
		t.Fatalf("the download: %v; want a pattern and a path, each artifact in a folder of its own", down.With)
	}
	var want []string
	for _, k := range shards {
		name := strings.ReplaceAll(uploadName, matrixRef, fmt.Sprint(k))
		if ok, err := path.Match(pattern, name); err != nil || !ok {
			t.Errorf("the download's pattern %q misses shard %d's artifact %s", pattern, k, name)
		}
		want = append(want, path.Join(dpath, name))
	}
	// The merge command: every shard's folder, in order, nothing else.
	var mergeLine []string
	for _, s := range runSteps(merge) {
		for _, line := range strings.Split(s.Run, "\n") {
			if f := strings.Fields(line); len(f) > 2 && f[0] == "lab" && f[1] == "merge-grades" {
				mergeLine = f
			}
		}
	}
	if mergeLine == nil || !slices.Equal(mergeLine[3:], want) {
		t.Fatalf("the merge command %q: want lab merge-grades OUT %s", mergeLine, strings.Join(want, " "))
	}
	if slices.Contains(want, mergeLine[2]) {
		t.Errorf("merge-grades writes into a shard's folder %s", mergeLine[2])
	}
	stepUsing(t, merge, "actions/upload-artifact")
	return dpath
}

func TestGitHubActionsWorkflow(t *testing.T) {
	checkWorkflow(t)
}

// runner is one job of the workflow run on this machine: a workspace, the
// workflow's environment, GitHub's files, and the lab built from the tree
// (with a sudo that only runs its command: the test is root or needs none)
// on PATH.
type runner struct {
	t       *testing.T
	ws      string
	env     []string
	summary string
}

func newRunner(t *testing.T, dir, name string, wf workflow, bin string) runner {
	t.Helper()
	root := filepath.Join(dir, name)
	ws := filepath.Join(root, "workspace")
	shims := filepath.Join(root, "shims")
	must(t, os.MkdirAll(ws, 0o755))
	must(t, os.MkdirAll(shims, 0o755))
	must(t, os.WriteFile(filepath.Join(shims, "sudo"), []byte("#!/bin/sh\nexec \"$@\"\n"), 0o755))
	r := runner{t: t, ws: ws, summary: filepath.Join(root, "summary.md")}
	r.env = []string{"PATH=" + shims + ":" + filepath.Dir(bin) + ":" + os.Getenv("PATH"),
		"GITHUB_WORKSPACE=" + ws, "GITHUB_PATH=" + filepath.Join(root, "path"), "GITHUB_STEP_SUMMARY=" + r.summary}
	for k, v := range wf.Env {
		r.env = append(r.env, k+"="+v)
	}
	// Not /srv/mcplab: a folder of the test's (the last value counts).
	r.env = append(r.env, "GRADING_ROOT="+filepath.Join(root, "grading"))
	return r
}

// run runs a step's script as GitHub's default shell does (bash -e), with
// the matrix value shard put in (0: not a matrix job).
func (r runner) run(s ghStep, shard int) {
	r.t.Helper()
	script := s.Run
	if shard > 0 {
		script = strings.ReplaceAll(script, matrixRef, fmt.Sprint(shard))
	}
	if strings.Contains(script, "${{") {
		r.t.Fatalf("step %q: an expression the run here does not know: %s", s.Name, script)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-c", script)
	cmd.Dir = r.ws
	cmd.Env = withEnv(r.env)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("step %q: %v\n%s", s.Name, err, out)
	}
}

// copyTree copies src to dst. As an artifact (asArtifact), it leaves out
// hidden files and file modes, as upload-artifact does by default; as a
// checkout, it keeps the modes, as git does.
func copyTree(t *testing.T, src, dst string, asArtifact bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if asArtifact && rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm()
		if asArtifact {
			mode = 0o644
		}
		return os.WriteFile(filepath.Join(dst, rel), data, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGitHubActionsWorkflowRuns runs the workflow's shell steps on this
// machine: each matrix job in a workspace of its own holding the class,
// its shard uploaded (copied, without hidden files) as an artifact; then
// the merge job with every artifact downloaded as download-artifact lays
// them out. The merged grades.csv must be one run's of the grade command
// without --shard, byte for byte. What it cannot do: run on GitHub's
// runners, with the actions themselves and the lab installed from a
// release (README.md says so).
func TestGitHubActionsWorkflowRuns(t *testing.T) {
	t.Parallel() // its own lab, class and folders: its grades mostly wait, beside the other run
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class four times")
	}
	plan := checkWorkflow(t)
	dir, bin := buildLab(t)
	class := writeTinyClass(t, dir)
	artifacts := filepath.Join(dir, "artifacts")
	grade, merge := plan.wf.Jobs["grade"], plan.wf.Jobs["merge"]

	for _, k := range plan.shards {
		r := newRunner(t, dir, fmt.Sprintf("shard-%d", k), plan.wf, bin)
		copyTree(t, class, filepath.Join(r.ws, "submissions"), false) // actions/checkout
		for _, s := range runSteps(grade) {
			r.run(s, k)
		}
		out := filepath.Join(r.ws, strings.ReplaceAll(plan.upload, matrixRef, fmt.Sprint(k)))
		checkShard(t, out, k, len(plan.shards), "process")
		copyTree(t, out, filepath.Join(artifacts, strings.ReplaceAll(plan.uploadName, matrixRef, fmt.Sprint(k))), true)
	}

	r := newRunner(t, dir, "merge", plan.wf, bin)
	down := stepUsing(t, merge, "actions/download-artifact")
	names, err := os.ReadDir(artifacts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if ok, _ := path.Match(down.With["pattern"], n.Name()); ok {
			copyTree(t, filepath.Join(artifacts, n.Name()), filepath.Join(r.ws, plan.downloadPath, n.Name()), true)
		}
	}
	for _, s := range runSteps(merge) {
		r.run(s, 0)
	}
	merged := filepath.Join(r.ws, stepUsing(t, merge, "actions/upload-artifact").With["path"])
	summary, _ := os.ReadFile(r.summary)
	mergedSummary, _ := os.ReadFile(filepath.Join(merged, "summary.md"))
	if len(summary) == 0 || string(summary) != string(mergedSummary) {
		t.Errorf("the job summary is not the merged summary.md:\n%s", summary)
	}

	// The grade command without --shard, in a workspace of its own.
	w := newRunner(t, dir, "whole", plan.wf, bin)
	copyTree(t, class, filepath.Join(w.ws, "submissions"), false)
	for _, s := range runSteps(grade) {
		s.Run = shardArg.ReplaceAllString(s.Run, "")
		w.run(s, 1)
	}
	sameGrades(t, merged, filepath.Join(w.ws, strings.ReplaceAll(plan.upload, matrixRef, "1")))
}
