package class_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
)

// TestMain turns testcontainers' Ryuk reaper off (it needs a registry; the
// container sandbox removes its own containers), runs six parallel tests at
// once unless -parallel says otherwise, and makes the folder for
// the lab binary the tests build (see labBinary), removed at the end.
func TestMain(m *testing.M) {
	if err := testkit.NoRyuk(); err != nil {
		fmt.Fprintf(os.Stderr, "class tests: %v\n", err)
		os.Exit(2)
	}
	// Most of these tests wait on the deadlines the grader gives the
	// students (a hung one costs two minutes of waiting and almost no CPU):
	// six at once on two cores.
	if err := testkit.DefaultParallel(6); err != nil {
		fmt.Fprintf(os.Stderr, "class tests: %v\n", err)
		os.Exit(2)
	}
	// Open to all: the sandbox users run the lab from there.
	testkit.MainInOpenTemp(m, "class tests", "mcplab-class-test-", func(dir string) error {
		labDir = dir
		return nil
	})
}
