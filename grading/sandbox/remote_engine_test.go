package sandbox_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/testkit"
)

// TestContainerSandboxOnRemoteEngine grades a known-good and a known-bad
// submission with the container sandbox pointed, through DOCKER_HOST, at a
// second Docker engine that docker/engine-second.sh starts on this machine
// (its own socket, data root, exec root and containerd; no bridge, no
// iptables), the way a teacher points the lab at an engine on a machine of
// its own. The runner image is copied into the second engine under a tag
// the first engine does not have, so a lab that reached the first engine
// could not even start; the second engine's events show the containers,
// the first engine's show none. The engine is stopped and its folder
// removed at the end.
//
// The lab runs as a separate process, as a teacher runs it:
// testcontainers-go reads DOCKER_HOST once per process, so a test that set
// it in this process would depend on which test touched Docker first.
func TestContainerSandboxOnRemoteEngine(t *testing.T) {
	skipWithoutSecondEngine(t)
	// Generous: it takes 40 s alone, and CI runs it beside every other
	// package; 100 s ran out there once, with nothing wrong.
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	host, second := startSecondEngine(ctx, t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	image := "mcplab/runner:remote-" + hex.EncodeToString(b[:])
	second("tag", sandbox.DefaultImage, image)
	if exec.Command("docker", "image", "inspect", image).Run() == nil {
		t.Fatalf("the first engine has %s too: the test could not tell the engines apart", image)
	}

	bin, td := remoteClass(t)
	out := filepath.Join(td, "results")
	since := strconv.FormatInt(time.Now().Unix(), 10)
	stderr := gradeClassOnEngine(ctx, t, bin, td, out, host, image)
	until := strconv.FormatInt(time.Now().Unix()+1, 10)

	grades, err := os.ReadFile(filepath.Join(out, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "student,score,max_score,status,failed,flags\n" +
		"py-banner,19,21,graded,stdout.messages-only,\n" +
		"py-good,21,21,graded,,\n"
	if string(grades) != want {
		t.Errorf("grades.csv:\n%s\nwant:\n%s\nlab's stderr:\n%s", grades, want, stderr)
	}
	if !strings.Contains(stderr, "in the container sandbox") {
		t.Errorf("the lab did not say it graded in the container sandbox:\n%s", stderr)
	}

	// The containers ran on the second engine, and none on the first.
	events := func(docker []string) []string {
		args := append(docker, "events", "--since", since, "--until", until,
			"--filter", "type=container", "--filter", "image="+image, "--format", "{{.Action}}")
		out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.Fields(string(out))
	}
	starts := 0
	for _, a := range events([]string{"docker", "-H", host}) {
		if a == "start" {
			starts++
		}
	}
	// At least one container per student; the grader starts one per scenario.
	if starts < 2 {
		t.Errorf("the second engine started %d container(s) of %s, want one or more per student", starts, image)
	}
	if first := events([]string{"docker"}); len(first) > 0 {
		t.Errorf("the first engine saw container events of %s: %v", image, first)
	}
	if left := strings.TrimSpace(second("ps", "-aq", "--filter", "label=mcplab.sandbox")); left != "" {
		t.Errorf("containers left on the second engine: %s", left)
	}
	t.Logf("graded on the second engine (%s): %d container(s) started there, none on the first", host, starts)
}

// skipWithoutSecondEngine skips the test unless it runs as root with
// dockerd installed, container tests on, no -short, and a first engine
// that holds the runner image (with MCPLAB_REQUIRE_DOCKER=1 that last one
// fails instead).
func skipWithoutSecondEngine(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it starts a second dockerd")
	}
	if _, err := exec.LookPath("dockerd"); err != nil {
		t.Skip("dockerd is not installed (docker/engine.sh installs it): no second engine to start")
	}
	if os.Getenv("MCPLAB_DOCKER_TESTS") == "off" {
		t.Skip("MCPLAB_DOCKER_TESTS=off: container tests skipped on purpose")
	}
	if testing.Short() {
		t.Skip("-short: starts a second Docker engine")
	}
	if out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", sandbox.DefaultImage).CombinedOutput(); err != nil {
		msg := "the first engine must answer and hold " + sandbox.DefaultImage + " to copy it from (docker/engine.sh, docker/runner-image.sh): " +
			err.Error() + ": " + strings.TrimSpace(string(out))
		if os.Getenv("MCPLAB_REQUIRE_DOCKER") == "1" {
			t.Fatal("MCPLAB_REQUIRE_DOCKER=1, but " + msg)
		}
		t.Skip(msg)
	}
}

// startSecondEngine starts a second Docker engine in a short folder of its
// own (its sockets live in it), stopped and removed when the test ends. It
// returns the engine's DOCKER_HOST and a function that runs a docker
// command against it.
func startSecondEngine(ctx context.Context, t *testing.T) (host string, second func(args ...string) string) {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "mcplab-e2.")
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "docker", "engine-second.sh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		out, err := exec.Command("sh", script, "stop", dir).CombinedOutput()
		if err != nil {
			t.Errorf("stopping the second engine: %v\n%s", err, out)
		}
		if _, err := os.Lstat(dir); err == nil {
			t.Errorf("the second engine's folder %s is still there", dir)
		}
	})
	start := exec.CommandContext(ctx, "sh", script, "start", dir, sandbox.DefaultImage)
	var startErr bytes.Buffer
	start.Stderr = &startErr
	hostOut, err := start.Output()
	if err != nil {
		t.Fatalf("starting the second engine: %v\n%s", err, startErr.String())
	}
	host = strings.TrimSpace(string(hostOut))
	if want := "unix://" + filepath.Join(dir, "docker.sock"); host != want {
		t.Fatalf("engine-second.sh printed %q, want %q", host, want)
	}
	second = func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, "docker", append([]string{"-H", host}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("docker -H %s %s: %v\n%s", host, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	return host, second
}

// gradeClassOnEngine runs the lab bin's grade-class of td's class into out,
// in the container sandbox with image, against the engine at host alone,
// and returns what the lab wrote to stderr.
func gradeClassOnEngine(ctx context.Context, t *testing.T, bin, td, out, host, image string) string {
	t.Helper()
	env := []string{"DOCKER_HOST=" + host, "TESTCONTAINERS_RYUK_DISABLED=true",
		// testcontainers' own settings file would win over DOCKER_HOST: none here.
		"HOME=" + td}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "DOCKER_HOST" && k != "HOME" && k != "DOCKER_CONTEXT" && !strings.HasPrefix(k, "TESTCONTAINERS_") {
			env = append(env, kv)
		}
	}
	cmd := exec.CommandContext(ctx, bin, "grade-class", "--sandbox", "container", "--image", image, "--root", td,
		"--time-scale", "3", "--format", "json", "--out", out, filepath.Join(td, "class"))
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lab grade-class against the second engine: %v\n%s", err, stderr.String())
	}
	return stderr.String()
}

// remoteClass builds the lab and lays out a class of two test submissions
// (py-good and py-banner, one mistake) beside the test servers their run
// scripts start; it returns the lab and the folder (the --root to mount:
// the engine mounts it by its path, so the folders above it need not be
// open to the container's user).
func remoteClass(t *testing.T) (bin, dir string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil { // the container's user reads it
		t.Fatal(err)
	}
	bin = filepath.Join(dir, "lab")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/lab").CombinedOutput(); err != nil {
		t.Fatalf("go build ../../cmd/lab: %v\n%s", err, out)
	}
	testdata := filepath.Join("..", "testdata")
	copies := [][2]string{
		{filepath.Join(testdata, "servers"), filepath.Join(dir, "servers")},
		{filepath.Join(testdata, "submissions", "py-good"), filepath.Join(dir, "class", "py-good")},
		{filepath.Join(testdata, "submissions", "py-banner"), filepath.Join(dir, "class", "py-banner")},
	}
	if err := os.Mkdir(filepath.Join(dir, "class"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range copies {
		if out, err := exec.Command("cp", "-R", c[0], c[1]).CombinedOutput(); err != nil {
			t.Fatalf("cp %s: %v\n%s", c[0], err, out)
		}
	}
	return bin, dir
}
