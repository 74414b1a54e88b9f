package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// MainInTemp runs a package's tests with a folder of their own for the
// binaries they build, made under the system's temporary folder with
// prefix, handed to set before any test runs, and removed after the run.
// Call it from TestMain; it does not return.
func MainInTemp(m *testing.M, prefix string, set func(dir string)) {
	mainIn(m, prefix, func(dir string) error {
		set(dir)
		return nil
	})
}

// MainInOpenTemp is MainInTemp for tests whose programs run as the
// sandbox's users: the folder is open to every user (mode 0755), and set
// may fail (building what the tests need there, say), which ends the run
// with status 2 before any test, its error on stderr after what ("class
// tests").
func MainInOpenTemp(m *testing.M, what, prefix string, set func(dir string) error) {
	mainIn(m, prefix, func(dir string) error {
		err := os.Chmod(dir, 0o755)
		if err == nil {
			err = set(dir)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
}

// mainIn makes the folder, hands it to prepare, runs the tests if prepare
// did not fail, removes the folder and exits.
func mainIn(m *testing.M, prefix string, prepare func(dir string) error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := prepare(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// GoBuild builds the Go package pkg (an import path, or a folder relative
// to the test's own) into dir/name with the toolchain that runs the test,
// and returns the binary's path. A failed build's error holds what the
// compiler said.
func GoBuild(dir, name, pkg string) (string, error) {
	return goBuild(dir, name, pkg, nil)
}

// GoBuildStatic is GoBuild with cgo off (CGO_ENABLED=0): the binary is
// static, so that a copy of it also runs in the container sandbox's
// image.
func GoBuildStatic(dir, name, pkg string) (string, error) {
	return goBuild(dir, name, pkg, []string{"CGO_ENABLED=0"})
}

// goBuild builds pkg into dir/name with env added to the test's own.
func goBuild(dir, name, pkg string, env []string) (string, error) {
	exe := filepath.Join(dir, name)
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, pkg)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, b)
	}
	return exe, nil
}
