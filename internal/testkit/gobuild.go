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
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	set(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// GoBuild builds the Go package pkg (an import path, or a folder relative
// to the test's own) into dir/name with the toolchain that runs the test,
// and returns the binary's path. A failed build's error holds what the
// compiler said.
func GoBuild(dir, name, pkg string) (string, error) {
	exe := filepath.Join(dir, name)
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, pkg)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, b)
	}
	return exe, nil
}
