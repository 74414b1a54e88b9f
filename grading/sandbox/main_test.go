package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
)

// launcher is the process sandbox's launcher the tests use, built by
// TestMain from testdata/launcher.
var launcher string

// TestMain builds the launcher, into a folder the sandbox users may read,
// and turns testcontainers' Ryuk reaper off (it needs a registry; the
// container sandbox removes its own containers).
func TestMain(m *testing.M) {
	if err := testkit.NoRyuk(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox tests: %v\n", err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "mcplab-sandbox-test-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox tests: %v\n", err)
		os.Exit(2)
	}
	launcher = filepath.Join(dir, "launcher")
	build := exec.Command("go", "build", "-o", launcher, "./testdata/launcher")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox tests: building the launcher: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
