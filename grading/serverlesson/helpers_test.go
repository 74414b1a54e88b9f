package serverlesson_test

import (
	"fmt"
	"os"
	"testing"
)

type buildError struct {
	pkg, out string
	err      error
}

func (e *buildError) Error() string { return fmt.Sprintf("building %s: %v\n%s", e.pkg, e.err, e.out) }

// tempRoot holds the binaries the tests build; TestMain removes it.
var tempRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcplab-grading-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tempRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func osMkdirTemp() (string, error) { return tempRoot, nil }
