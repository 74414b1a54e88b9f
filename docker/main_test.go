// Package docker_test checks the lab's container image and Compose stack
// against a real Docker engine: the image built from docker/Dockerfile, the
// lesson run and the reference server inside it, and docker-compose.yml.
//
// The tests need a Docker engine (docker/engine.sh starts one). Without one
// they skip, unless MCPLAB_REQUIRE_DOCKER=1, which turns the skip into a
// failure (for CI). MCPLAB_DOCKER_TESTS=off skips them on purpose, and so
// does -short.
//
// testcontainers-go would start its Ryuk reaper, whose image must be pulled
// from a registry; TestMain sets TESTCONTAINERS_RYUK_DISABLED=true when it is
// unset, and every container is removed by the test that made it instead.
package docker_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/testcontainers/testcontainers-go"
)

func TestMain(m *testing.M) {
	// testcontainers reads this on first use, so it must be set before any test.
	if err := testkit.NoRyuk(); err != nil {
		fmt.Fprintf(os.Stderr, "docker tests: set TESTCONTAINERS_RYUK_DISABLED: %v\n", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// needEngine skips the test when no Docker engine answers, or fails it when
// MCPLAB_REQUIRE_DOCKER=1 says an engine must be there.
func needEngine(t *testing.T) {
	t.Helper()
	testkit.SkipContainerTests(t, "container tests skipped (they build images and start containers)")
	if err := engineHealth(); err != nil {
		testkit.Unavailable(t, fmt.Sprintf("MCPLAB_REQUIRE_DOCKER=1 but no Docker engine answers: %v\nStart one with docker/engine.sh.", err),
			fmt.Sprintf("no Docker engine answers (%v); start one with docker/engine.sh, or set MCPLAB_REQUIRE_DOCKER=1 to make this a failure", err))
	}
}

// engineHealth asks the engine testcontainers finds (DOCKER_HOST, the
// Docker context, /var/run/docker.sock, ...) whether it answers.
func engineHealth() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("testcontainers: %v", r)
		}
	}()
	provider, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return err
	}
	defer provider.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return provider.Health(ctx)
}

// repoRoot is the module root, one level above this package's directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatalf("repository root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root %s has no go.mod: %v", root, err)
	}
	return root
}

// buildLab builds the static lab binary the way docker/build-local.sh does
// and returns its path, dir/dist/lab.
func buildLab(t testing.TB, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "dist", "lab")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=container-test", "-o", out, "./cmd/lab")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/lab: %v\n%s", err, msg)
	}
	return out
}

// buildContext fills dir with what `docker build -f docker/Dockerfile
// --target runtime` reads from the repository: the Dockerfile, .dockerignore,
// docker/passwd, docker/group and an empty docker/empty/. The caller adds
// dist/lab (see buildLab).
func buildContext(t testing.TB, dir string, extra ...string) {
	t.Helper()
	root := repoRoot(t)
	files := append([]string{".dockerignore", "docker/Dockerfile", "docker/passwd", "docker/group"}, extra...)
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatalf("build context: %v", err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatalf("build context: %v", err)
		}
		info, err := os.Stat(filepath.Join(root, name))
		if err != nil {
			t.Fatalf("build context: %v", err)
		}
		if err := os.WriteFile(dst, data, info.Mode().Perm()); err != nil {
			t.Fatalf("build context: %v", err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "docker", "empty"), 0o755); err != nil {
		t.Fatalf("build context: %v", err)
	}
}

// runLocal runs the lab binary on this machine and returns its stdout and
// stderr; a failure to start or a non-zero exit is an error with both.
func runLocal(ctx context.Context, bin string, args ...string) (stdout, stderr string, code int, err error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	code = -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	if err != nil {
		err = fmt.Errorf("lab %s: %w\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), errOut.String(), code, err
}
