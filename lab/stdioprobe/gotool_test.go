package stdioprobe_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
)

// runGo runs the go tool that is running the tests.
func runGo(args ...string) ([]byte, error) {
	return exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...).CombinedOutput()
}
