//go:build unix

package docker_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/moby/moby/api/types/build"
	"github.com/moby/moby/api/types/container"
)

// runnerImage is the image docker/runner-image.sh makes and the class
// grader's container sandbox runs (grading/sandbox.DefaultImage); the
// workbench is built on it.
const runnerImage = "mcplab/runner:bookworm"

// runnerRecipe is the org.mcplab.runner label of a runner image made by the
// current docker/runner-image.sh (the one with nodejs).
const runnerRecipe = "debian-bookworm-minbase+python3,nodejs,bash,coreutils+runner-65532"

// maxWorkbenchBytes is the size budget of the workbench image: the runner
// image (Debian minbase, python3 and nodejs: about 210 MB) and the lab binary.
const maxWorkbenchBytes = 260 << 20

// studentUID owns the student's folder in these tests, as a student's own
// user on a Linux host would: no user of the image has it.
const studentUID = 4321

// gradeTimeScale stretches the grader's deadlines in these tests. The
// machine running them may be busy with other work, and a server in a
// container starts slower; the verdicts of the servers graded here do not
// depend on the deadlines, only on whether they are met.
const gradeTimeScale = "2"

// needRunnerImage returns when the runner image with nodejs is on this
// machine, and otherwise skips the test (fails it under
// MCPLAB_REQUIRE_DOCKER=1), saying how to build it.
func needRunnerImage(ctx context.Context, t *testing.T, e *engine) {
	t.Helper()
	info, err := e.cli.ImageInspect(ctx, runnerImage)
	problem := ""
	switch {
	case err != nil:
		problem = fmt.Sprintf("the runner image %s is not on this machine (%v)", runnerImage, err)
	case info.Config == nil || info.Config.Labels["org.mcplab.runner"] != runnerRecipe:
		label := ""
		if info.Config != nil {
			label = info.Config.Labels["org.mcplab.runner"]
		}
		problem = fmt.Sprintf("the runner image %s was made by an older docker/runner-image.sh (label org.mcplab.runner %q, want %q)",
			runnerImage, label, runnerRecipe)
	default:
		t.Logf("runner image %s: %d bytes", runnerImage, info.Size)
		return
	}
	why := problem + "; build it with: sh docker/runner-image.sh"
	testkit.Unavailable(t, why, why)
}

// studentFolder makes a folder as a student's: the named files copied from
// the repository under the names given, owned by studentUID.
func studentFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "student")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, from := range files {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chownTree(t, dir, studentUID)
	return dir
}

// chownTree gives dir and everything in it to uid (and the group of the
// same number), when this test runs as root; otherwise it leaves them to
// the user running the test, which is as good for the workbench.
func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// workbenchOpts runs the workbench the way docker-compose.yml's workbench
// service does: the folder mounted read-write at /work, every capability
// dropped but the four the entry script needs to switch users, and
// no-new-privileges.
func workbenchOpts(folder string, args ...string) containerOpts {
	return containerOpts{args: args, host: func(hc *container.HostConfig) {
		hc.Binds = []string{folder + ":/work"}
		hc.CapDrop = []string{"ALL"}
		hc.CapAdd = []string{"CHOWN", "SETUID", "SETGID", "SETPCAP"}
		hc.SecurityOpt = []string{"no-new-privileges:true"}
	}}
}

// verdict is the part of `lab grade --format json` these tests compare.
type verdict struct {
	Gradable bool `json:"gradable"`
	Score    int  `json:"score"`
	MaxScore int  `json:"max_score"`
	Outcome  struct {
		Kind string `json:"kind"`
	} `json:"outcome"`
	Checks []checkResult `json:"checks"`
}

// checkResult is one check of a verdict.
type checkResult struct {
	ID     string `json:"id"`
	Status string `json:"status"` // pass, fail or skip
	// Deadline is set on a failure that rests on deadlines alone.
	Deadline bool `json:"deadline"`
}

// failed lists the ids of the checks that did not pass, in report order.
func (v verdict) failed() []string {
	var ids []string
	for _, c := range v.Checks {
		if c.Status != "pass" {
			ids = append(ids, c.ID+" ("+c.Status+")")
		}
	}
	return ids
}

// notPassed lists the ids of the checks that did not pass, whatever their
// status.
func (v verdict) notPassed() []string {
	var ids []string
	for _, c := range v.Checks {
		if c.Status != "pass" {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// sameVerdictButDeadlines compares two verdicts of one program check by
// check, letting a check differ only where a run that timed out cut it:
// skipped in one run, or failed on a deadline in one run and passed or
// skipped in the other. It says what else differs; "" when nothing does.
func sameVerdictButDeadlines(a, b verdict) string {
	if a.MaxScore != b.MaxScore || len(a.Checks) != len(b.Checks) {
		return fmt.Sprintf("different lessons: %d checks of %d points, and %d of %d", len(a.Checks), a.MaxScore, len(b.Checks), b.MaxScore)
	}
	timedOut := a.Outcome.Kind == "timeout" || b.Outcome.Kind == "timeout"
	cut := func(c checkResult) bool { return timedOut && (c.Status == "skip" || c.Status == "fail" && c.Deadline) }
	var diffs []string
	for i, ca := range a.Checks {
		cb := b.Checks[i]
		if ca.ID != cb.ID {
			return fmt.Sprintf("check %d is %s in one and %s in the other", i+1, ca.ID, cb.ID)
		}
		if ca.Status != cb.Status && !cut(ca) && !cut(cb) {
			diffs = append(diffs, fmt.Sprintf("%s: %s and %s, neither cut by a deadline", ca.ID, ca.Status, cb.Status))
		}
	}
	if (a.Outcome.Kind == "timeout") != (b.Outcome.Kind == "timeout") && len(diffs) == 0 && a.Score != b.Score {
		diffs = append(diffs, "only one run timed out, and the scores differ")
	}
	return strings.Join(diffs, "; ")
}

func (v verdict) String() string {
	return fmt.Sprintf("%s, %d/%d, not passed: %v", v.Outcome.Kind, v.Score, v.MaxScore, v.failed())
}

// parseVerdict reads the JSON report of `lab grade`, which exited with code
// (0 all passed, 1 some check failed, 2 could not grade).
func parseVerdict(stdout, stderr string, code int) (verdict, error) {
	var v verdict
	if code != 0 && code != 1 {
		return v, fmt.Errorf("lab grade exited %d, want 0 or 1\nstdout:\n%s\nstderr:\n%s", code, indent(stdout), indent(stderr))
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		return v, fmt.Errorf("lab grade --format json printed no JSON report (%v)\nstdout:\n%s\nstderr:\n%s", err, indent(stdout), indent(stderr))
	}
	if len(v.Checks) == 0 || v.MaxScore == 0 {
		return v, fmt.Errorf("lab grade's report has no checks:\n%s", indent(stdout))
	}
	failed := slices.ContainsFunc(v.Checks, func(c checkResult) bool { return c.Status == "fail" })
	if failed != (code == 1) {
		return v, fmt.Errorf("lab grade exited %d with the verdict %v", code, v)
	}
	return v, nil
}

// gradeArgs is the lab grade command line for a server command.
func gradeArgs(server ...string) []string {
	return append([]string{"lab", "grade", "--format", "json", "--time-scale", gradeTimeScale, "--"}, server...)
}

// TestWorkbench builds the workbench from docker/Dockerfile (target
// workbench: the runner image plus dist/lab, nothing pulled) and uses it as a student with only Docker would: a shell with lab,
// python3 and node, in their own folder, where lab grade grades a Python and
// a JavaScript server.
func TestWorkbench(t *testing.T) {
	needEngine(t)
	t.Parallel() // its own image tag and folders; its grades mostly wait
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	e := newEngine(ctx, t)
	needRunnerImage(ctx, t, e)

	dir := t.TempDir()
	bin := buildLab(t, dir)
	buildContext(t, dir, "docker/workbench-entry.sh")
	runner := runnerImage
	// BuildKit: it skips the runtime stage, which the legacy builder would
	// leave behind as an untagged image. TestCompose builds the same target
	// with docker-compose v1's legacy builder.
	wb := &engine{cli: e.cli, image: buildImage(ctx, t, e, dir, "workbench", "mcplab/workbench", build.BuilderBuildKit,
		map[string]*string{"RUNNER_IMAGE": &runner})}

	t.Run("config", func(t *testing.T) { testWorkbenchConfig(ctx, t, wb) })
	t.Run("tools", func(t *testing.T) { testWorkbenchTools(ctx, t, wb) })
	t.Run("owner", func(t *testing.T) { testWorkbenchOwner(ctx, t, wb) })
	t.Run("grade", func(t *testing.T) { testWorkbenchGrade(ctx, t, wb) })
	t.Run("starters", func(t *testing.T) { testWorkbenchStarters(ctx, t, wb, bin) })
}

// testWorkbenchConfig checks the image's size budget and settings.
func testWorkbenchConfig(ctx context.Context, t *testing.T, e *engine) {
	cfg := imageConfig(ctx, t, e, maxWorkbenchBytes, "has the runner image grown (recommended packages, docs)?")
	if want := []string{"/bin/sh", "/usr/local/bin/workbench-entry"}; !slices.Equal(cfg.Entrypoint, want) || !slices.Equal(cfg.Cmd, []string{"bash"}) {
		t.Errorf("entrypoint %q cmd %q, want %q [bash]", cfg.Entrypoint, cfg.Cmd, want)
	}
	if cfg.WorkingDir != "/work" {
		t.Errorf("working directory %q, want /work", cfg.WorkingDir)
	}
	if cfg.Labels["org.mcplab.runner"] != runnerRecipe {
		t.Errorf("label org.mcplab.runner %q, want %q: the workbench is not built on the runner image", cfg.Labels["org.mcplab.runner"], runnerRecipe)
	}
}

// testWorkbenchTools checks that lab, python3 and Node 18 or later are
// there, and that with no folder mounted the shell runs as runner.
func testWorkbenchTools(ctx context.Context, t *testing.T, e *engine) {
	r, err := e.run(ctx, t, containerOpts{args: []string{"bash", "-c", "id -un; lab version; python3 --version; node --version"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 4 {
		t.Fatalf("the tools in the workbench: exit %d, want 0 and four lines\nstdout:\n%s\nstderr:\n%s", r.code, indent(r.stdout), indent(r.stderr))
	}
	t.Logf("workbench: %s", strings.Join(lines, ", "))
	if lines[0] != "runner" {
		t.Errorf("with no folder mounted the workbench runs as %q, want runner (the owner of the image's /work)", lines[0])
	}
	if lines[1] != "lab container-test" {
		t.Errorf("lab version printed %q, want %q", lines[1], "lab container-test")
	}
	if !strings.HasPrefix(lines[2], "Python 3.") {
		t.Errorf("python3 --version printed %q", lines[2])
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(lines[3], "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n < 18 {
		t.Errorf("node --version printed %q, want 18 or later", lines[3])
	}
}

// testWorkbenchOwner checks that commands run as the owner of the mounted
// folder with no capabilities, and that what they write there is the
// owner's on the host.
func testWorkbenchOwner(ctx context.Context, t *testing.T, e *engine) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the folder to another user")
	}
	folder := studentFolder(t, nil)
	script := `id -u; id -g; echo "$HOME"; grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status | tr -s '\t' ' '; echo made > made.txt`
	r, err := e.run(ctx, t, workbenchOpts(folder, "bash", "-c", script))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d\n%d\n/home/student\nCapPrm: 0000000000000000\nCapEff: 0000000000000000\nCapBnd: 0000000000000000\nCapAmb: 0000000000000000\n", studentUID, studentUID)
	if r.code != 0 || r.stdout != want {
		t.Errorf("as the owner of the folder, the workbench printed (exit %d):\n%s\nwant:\n%s\nstderr:\n%s", r.code, indent(r.stdout), indent(want), indent(r.stderr))
	}
	info, err := os.Stat(filepath.Join(folder, "made.txt"))
	if err != nil {
		t.Fatalf("the file written in the workbench is not in the folder on the host: %v", err)
	}
	if st := fileOwner(info); st != studentUID {
		t.Errorf("the file written in the workbench belongs to uid %d on the host, want %d (the folder's owner)", st, studentUID)
	}

	// A folder owned by root (a student who is root on the host) keeps
	// root, but with no capabilities.
	rootFolder := t.TempDir()
	r, err = e.run(ctx, t, workbenchOpts(rootFolder, "bash", "-c", `id -u; grep '^CapEff:' /proc/self/status | tr -s '\t' ' '`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "0\nCapEff: 0000000000000000\n"; r.code != 0 || r.stdout != want {
		t.Errorf("in a folder owned by root the workbench printed (exit %d):\n%s\nwant:\n%s", r.code, indent(r.stdout), indent(want))
	}

	// Without the capabilities the switch needs, the command still runs
	// (as root, with none), and the workbench says why it did not switch.
	o := workbenchOpts(folder, "id", "-u")
	o.host = func(hc *container.HostConfig) {
		hc.Binds = []string{folder + ":/work"}
		hc.CapDrop = []string{"ALL"}
	}
	r, err = e.run(ctx, t, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || r.stdout != "0\n" || !strings.Contains(r.stderr, "cannot switch to the owner of /work") {
		t.Errorf("with every capability dropped the workbench printed (exit %d):\n%s\nstderr:\n%s\nwant uid 0 and a message saying it could not switch",
			r.code, indent(r.stdout), indent(r.stderr))
	}
}

// testWorkbenchGrade grades the known-good Python and JavaScript servers in
// a student's folder inside the workbench, and wants full marks for both.
func testWorkbenchGrade(ctx context.Context, t *testing.T, e *engine) {
	folder := studentFolder(t, map[string]string{
		"server.py": "grading/testdata/servers/student_py/server.py",
		"server.js": "grading/testdata/submissions/js-good/server.js",
	})
	for _, server := range [][]string{{"python3", "server.py"}, {"node", "server.js"}} {
		t.Run(server[0], func(t *testing.T) {
			r, err := e.run(ctx, t, workbenchOpts(folder, gradeArgs(server...)...))
			if err != nil {
				t.Fatal(err)
			}
			v, err := parseVerdict(r.stdout, r.stderr, r.code)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("lab grade -- %s in the workbench: %v", strings.Join(server, " "), v)
			if r.code != 0 || !v.Gradable || v.Score != v.MaxScore || v.Outcome.Kind != "passed" {
				t.Errorf("lab grade -- %s in the workbench: %v (exit %d), want full marks\nstderr:\n%s", strings.Join(server, " "), v, r.code, indent(r.stderr))
			}
		})
	}
}

// starters are lesson 1's starters in the languages the workbench runs,
// with the command that starts each from its own folder.
var starters = []struct {
	lang, dir string
	server    []string
	hostTool  string
}{
	{"python", "lessons/01-reading-messages/starter/python", []string{"python3", "server.py"}, "python3"},
	{"javascript", "lessons/01-reading-messages/starter/javascript", []string{"node", "server.js"}, "node"},
}

// testWorkbenchStarters grades each starter of lesson 1 in the workbench
// and with lab on this machine, and wants the same verdict: the same score
// and the same checks not passed. A starter not yet in the repository is
// skipped, and so is one whose language this machine lacks. The starters,
// and each starter's two grades, run at the same time: a starter as shipped
// fails checks on deadlines, which are confirmed at four times their length
// (a minute of waiting per grade), and every grade must give its verdict
// whatever runs beside it.
func testWorkbenchStarters(ctx context.Context, t *testing.T, e *engine, bin string) {
	for _, s := range starters {
		t.Run(s.lang, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(repoRoot(t), s.dir)
			if _, err := os.Stat(filepath.Join(src, s.server[1])); err != nil {
				t.Skipf("no %s starter (%v)", s.lang, err)
			}
			if _, err := exec.LookPath(s.hostTool); err != nil {
				t.Skipf("%s is not on this machine, so the verdict outside the workbench is unknown", s.hostTool)
			}
			folder := filepath.Join(t.TempDir(), "starter")
			if err := os.CopyFS(folder, os.DirFS(src)); err != nil {
				t.Fatalf("copy the %s starter: %v", s.lang, err)
			}
			chownTree(t, folder, studentUID)

			args := gradeArgs(s.server...)[1:] // without "lab"
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Dir = folder
			var out, errOut strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errOut
			hostDone := make(chan error, 1)
			go func() { hostDone <- cmd.Run() }()

			r, err := e.run(ctx, t, workbenchOpts(folder, gradeArgs(s.server...)...))
			if runErr := <-hostDone; runErr != nil && cmd.ProcessState == nil {
				t.Fatalf("on this machine: lab grade did not run: %v", runErr)
			}
			if err != nil {
				t.Fatal(err)
			}
			host, err := parseVerdict(out.String(), errOut.String(), cmd.ProcessState.ExitCode())
			if err != nil {
				t.Fatalf("on this machine: %v", err)
			}
			inside, err := parseVerdict(r.stdout, r.stderr, r.code)
			if err != nil {
				t.Fatalf("in the workbench: %v", err)
			}
			t.Logf("the %s starter: %v", s.lang, inside)
			// The same verdict, check by check, but for checks that rest on
			// deadlines: a starter as shipped times out, and in a run that
			// timed out, where the deadlines fell decides whether a check
			// they cut is skipped, failed on that deadline, or (when its
			// scenario had played far enough) passed. Under CI's load that
			// differed between the two runs (framing.* skipped on the host
			// and failed in the workbench; notifications.silent passed on
			// the host and failed on a deadline in the workbench). Any
			// other difference, and any score difference not made of such
			// checks' points, fails.
			if why := sameVerdictButDeadlines(inside, host); why != "" {
				t.Errorf("the %s starter graded in the workbench: %v\non this machine: %v\n%s", s.lang, inside, host, why)
			}
		})
	}
}

// TestContainerSandboxNode grades js-good with `lab grade-class --sandbox
// container`, which runs every server in a container of the runner image,
// and wants full marks: the runner image has Node.
func TestContainerSandboxNode(t *testing.T) {
	needEngine(t)
	t.Parallel() // its own lab, class and folders; the grade mostly waits
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	e := newEngine(ctx, t)
	needRunnerImage(ctx, t, e)

	dir := t.TempDir()
	bin := buildLab(t, dir)
	subs := filepath.Join(dir, "class")
	src := filepath.Join(repoRoot(t), "grading", "testdata", "submissions", "js-good")
	if err := os.CopyFS(filepath.Join(subs, "js-good"), os.DirFS(src)); err != nil {
		t.Fatalf("copy js-good: %v", err)
	}
	out := filepath.Join(dir, "results")
	cmd := exec.CommandContext(ctx, bin, "grade-class", "--sandbox", "container", "--image", runnerImage, "--out", out, subs)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lab grade-class --sandbox container: %v\n%s", err, indent(string(msg)))
	}
	f, err := os.Open(filepath.Join(out, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("grades.csv: %v", err)
	}
	t.Logf("grades.csv: %q", rows)
	if len(rows) != 2 {
		t.Fatalf("grades.csv of the container sandbox is %q, want a header and one row\nlab grade-class printed:\n%s", rows, indent(string(msg)))
	}
	row := map[string]string{}
	for i, name := range rows[0] {
		row[name] = rows[1][i]
	}
	if row["student"] != "js-good" || row["score"] == "" || row["score"] != row["max_score"] || row["status"] != "graded" || row["failed"] != "" {
		t.Errorf("grades.csv of the container sandbox is %q, want js-good with full marks, graded, no failed check\nlab grade-class printed:\n%s", rows, indent(string(msg)))
	}
}

// fileOwner is the uid owning a file, or -1 when the system does not say.
func fileOwner(info os.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
