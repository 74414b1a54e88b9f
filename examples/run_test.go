package examples

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/internal/testkit"
)

// buildLab builds the lab from this tree into a fresh folder the sandbox
// users may pass through, and returns the folder and the binary.
func buildLab(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = testkit.OpenDir(t)
	bin, err := testkit.GoBuild(filepath.Join(dir, "bin"), "lab", "../cmd/lab")
	if err != nil {
		t.Fatal(err)
	}
	return dir, bin
}

// tinyClass is the class the runs grade, one known verdict each, every
// submission self-contained (its server beside its run script, as a
// student's is: the container sandbox mounts only the submission's own
// folder): a good Python server, one that prints a banner on stdout, a
// good JavaScript server, and a folder without a run script.
var tinyClass = map[string]string{
	"ann":  "21,21,graded,,",
	"ben":  "19,21,graded,stdout.messages-only,",
	"cleo": ",21,ungradable,,",
	"dan":  "21,21,graded,,",
}

// writeTinyClass writes tinyClass into dir/name and returns the folder.
func writeTinyClass(t *testing.T, dir string) string {
	t.Helper()
	subs := filepath.Join(dir, "class")
	testdata := filepath.Join("..", "grading", "testdata")
	server, err := os.ReadFile(filepath.Join(testdata, "servers", "student_py", "server.py"))
	if err != nil {
		t.Fatal(err)
	}
	py := func(name, flags string) {
		d := filepath.Join(subs, name)
		must(t, os.MkdirAll(d, 0o755))
		must(t, os.WriteFile(filepath.Join(d, "server.py"), server, 0o644))
		must(t, os.WriteFile(filepath.Join(d, "run"), []byte("#!/bin/sh\nexec python3 \"$(dirname \"$0\")/server.py\""+flags+"\n"), 0o755))
	}
	py("ann", "")
	py("ben", " --mistake banner")
	must(t, os.MkdirAll(filepath.Join(subs, "cleo"), 0o755))
	if out, err := exec.Command("cp", "-R", filepath.Join(testdata, "submissions", "js-good"), filepath.Join(subs, "dan")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return subs
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantGrades is the grades.csv of tinyClass.
func wantGrades() string {
	names := make([]string, 0, len(tinyClass))
	for n := range tinyClass {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("student,score,max_score,status,failed,flags\n")
	for _, n := range names {
		b.WriteString(n + "," + tinyClass[n] + "\n")
	}
	return b.String()
}

// runLab runs the lab with args and env (added to this process's, minus
// the names it sets), in dir, and fails the test unless it exits 0.
func runLab(t *testing.T, bin, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = withEnv(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lab %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// withEnv returns this process's environment with env's settings in place
// of its own.
func withEnv(env []string) []string {
	set := map[string]bool{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		set[k] = true
	}
	out := slices.Clone(env)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !set[k] {
			out = append(out, kv)
		}
	}
	return out
}

// checkShard checks that the results folder out holds shard k of n: its
// record says so, and it graded exactly the students the shard holds.
func checkShard(t *testing.T, out string, k, n int, sandbox string) {
	t.Helper()
	rec, err := class.ReadRecord(out)
	if err != nil {
		t.Fatal(err)
	}
	shard := class.Shard{K: k, N: n}
	if rec.Shard != shard {
		t.Errorf("%s records shard %s, want %s", out, rec.Shard, shard)
	}
	if rec.Class.Sandbox != sandbox {
		t.Errorf("shard %s graded in the %s sandbox, want %s", shard, rec.Class.Sandbox, sandbox)
	}
	var got, want []string
	for _, s := range rec.Class.Students {
		got = append(got, s.Name)
	}
	for name := range tinyClass {
		if shard.Holds(name) {
			want = append(want, name)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("shard %s graded %q, want %q", shard, got, want)
	}
	t.Logf("shard %s: %d student(s) %q, in the %s sandbox", shard, len(got), got, rec.Class.Sandbox)
}

// sameGrades fails the test unless the merged grades.csv is the one run's,
// byte for byte, and both are tinyClass's.
func sameGrades(t *testing.T, merged, whole string) {
	t.Helper()
	m, err1 := os.ReadFile(filepath.Join(merged, "grades.csv"))
	w, err2 := os.ReadFile(filepath.Join(whole, "grades.csv"))
	if err1 != nil || err2 != nil {
		t.Fatalf("reading grades.csv: %v %v", err1, err2)
	}
	if !bytes.Equal(m, w) {
		t.Errorf("merged grades.csv:\n%s\nwant, as one run gives:\n%s", m, w)
	}
	if string(w) != wantGrades() {
		t.Errorf("one run's grades.csv:\n%s\nwant:\n%s", w, wantGrades())
	}
}

// needEngine skips the test (or fails it with MCPLAB_REQUIRE_DOCKER=1)
// unless a Docker engine answers with the runner image, and returns its
// socket.
func needEngine(t *testing.T) string {
	t.Helper()
	if os.Getenv("MCPLAB_DOCKER_TESTS") == "off" {
		t.Skip("MCPLAB_DOCKER_TESTS=off: container tests skipped on purpose")
	}
	out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", "mcplab/runner:bookworm").CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("the Job's lab grades in the container sandbox, which needs a Docker engine with mcplab/runner:bookworm "+
			"(docker/engine.sh, docker/runner-image.sh): %v: %s", err, strings.TrimSpace(string(out)))
		testkit.Unavailable(t, "MCPLAB_REQUIRE_DOCKER=1, but "+msg, msg)
	}
	switch h := os.Getenv("DOCKER_HOST"); {
	case h == "":
		return "/var/run/docker.sock"
	case strings.HasPrefix(h, "unix://"):
		return strings.TrimPrefix(h, "unix://")
	default:
		// The pod's socket stands for the sidecar: it must be a socket here.
		t.Skipf("DOCKER_HOST=%s: the run needs an engine on a unix socket, to stand in for the pod's sidecar", h)
		return ""
	}
}

// pod is one pod of a Job on this machine: each volume is a folder, a
// claim's shared by every pod, an emptyDir the pod's own.
type pod struct {
	t      *testing.T
	spec   podSpec
	claims string // folder of the claims' folders
	dir    string // folder of the pod's emptyDirs
}

// path maps a path of container c to this machine.
func (p pod) path(c container, path string) string {
	p.t.Helper()
	m, rel, ok := mountOf(c, path)
	if !ok {
		p.t.Fatalf("%s: %s is in no volume mount", c.Name, path)
	}
	v, ok := volumeNamed(p.spec, m.Name)
	if !ok {
		p.t.Fatalf("%s: no volume %s", c.Name, m.Name)
	}
	if v.PersistentVolumeClaim != nil {
		return filepath.Join(p.claims, v.PersistentVolumeClaim.ClaimName, rel)
	}
	return filepath.Join(p.dir, v.Name, rel)
}

// command returns container c's args for the pod of completion index
// index (-1: not an indexed pod), expanded as the kubelet does, with every
// absolute path mapped to this machine; and its environment, mapped too.
func (p pod) command(c container, index int) (args, env []string) {
	vars := envOf(c)
	if index >= 0 {
		vars["JOB_COMPLETION_INDEX"] = fmt.Sprint(index)
	}
	mapPath := func(s string) string {
		if filepath.IsAbs(s) {
			return p.path(c, s)
		}
		return s
	}
	for _, a := range c.Args {
		a = kubeExpand(a, vars)
		if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
			a = name + "=" + mapPath(value)
		} else {
			a = mapPath(a)
		}
		args = append(args, a)
	}
	for k, v := range vars {
		if sock, ok := strings.CutPrefix(v, "unix://"); ok {
			v = "unix://" + p.path(c, sock)
		}
		env = append(env, k+"="+v)
	}
	// The container's /tmp is a volume of the pod: the lab makes its work
	// folders there.
	if _, _, ok := mountOf(c, "/tmp"); ok {
		env = append(env, "TMPDIR="+p.path(c, "/tmp"))
	}
	return args, env
}

// newPod makes the folders of a pod of spec.
func newPod(t *testing.T, spec podSpec, claims, dir string) pod {
	t.Helper()
	for _, v := range spec.Volumes {
		d := filepath.Join(dir, v.Name)
		if v.PersistentVolumeClaim != nil {
			d = filepath.Join(claims, v.PersistentVolumeClaim.ClaimName)
		}
		must(t, os.MkdirAll(d, 0o755))
	}
	return pod{t: t, spec: spec, claims: claims, dir: dir}
}

// TestKubernetesJobRuns runs the Indexed Job's lab command for every
// completion index on this machine, as the kubelet would start it ($(VAR)
// expanded; the volumes folders here; the Docker engine of this machine
// standing in for the pod's sidecar, on the socket path the Job names),
// checks each pod graded its shard, runs the merge Job's command, and
// compares the merged grades.csv with one run of the same command over the
// whole class, byte for byte. What it cannot do: run the pods in a cluster,
// in the lab image, with a Docker-in-Docker sidecar (README.md says so).
func TestKubernetesJobRuns(t *testing.T) {
	t.Parallel() // its own lab, class and folders: its grades mostly wait, beside the other run
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class four times in containers")
	}
	engineSock := needEngine(t)
	g := checkGradeJob(t, loadClaims(t))
	_, mergeLab := checkMergeJob(t, g)
	dir, bin := buildLab(t)
	claims := filepath.Join(dir, "claims")
	spec := g.job.Spec.Template.Spec

	// The class, copied onto its claim as a teacher would.
	first := newPod(t, spec, claims, filepath.Join(dir, "pod-0"))
	_, classArgs := flagArgs(t, g.lab.Args[1:])
	classDir := first.path(g.lab, classArgs[0])
	must(t, os.RemoveAll(classDir))
	src := writeTinyClass(t, dir)
	if out, err := exec.Command("cp", "-R", src, classDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}

	for i := range g.shards {
		p := newPod(t, spec, claims, filepath.Join(dir, fmt.Sprintf("pod-%d", i)))
		// The sidecar's socket, where the lab's DOCKER_HOST points.
		sock, _ := strings.CutPrefix(envOf(g.lab)["DOCKER_HOST"], "unix://")
		must(t, os.Symlink(engineSock, p.path(g.lab, sock)))
		args, env := p.command(g.lab, i)
		runLab(t, bin, dir, env, args...)
		checkShard(t, p.path(g.lab, g.out(i)), i+1, g.shards, "container")
	}

	mergePod := newPod(t, decodeOne[job](t, filepath.Join("kubernetes", "merge-grades-job.yaml")).Spec.Template.Spec, claims, filepath.Join(dir, "merge"))
	args, env := mergePod.command(mergeLab, -1)
	runLab(t, bin, dir, env, args...)

	// One run of the same command, unsharded, on a pod of its own.
	p := newPod(t, spec, claims, filepath.Join(dir, "pod-whole"))
	sock, _ := strings.CutPrefix(envOf(g.lab)["DOCKER_HOST"], "unix://")
	must(t, os.Symlink(engineSock, p.path(g.lab, sock)))
	whole := filepath.Join(dir, "whole")
	args, env = p.command(g.lab, 0)
	var unsharded []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--shard-index="), strings.HasPrefix(a, "--shard-count="):
		case strings.HasPrefix(a, "--out="):
			unsharded = append(unsharded, "--out="+whole)
		default:
			unsharded = append(unsharded, a)
		}
	}
	runLab(t, bin, dir, env, unsharded...)
	sameGrades(t, mergePod.path(mergeLab, mergeLab.Args[1]), whole)
}
