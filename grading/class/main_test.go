package class_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
)

// TestMain turns testcontainers' Ryuk reaper off (it needs a registry; the
// container sandbox removes its own containers), and makes the folder for
// the lab binary the tests build (see labBinary), removed at the end.
func TestMain(m *testing.M) {
	if err := testkit.NoRyuk(); err != nil {
		fmt.Fprintf(os.Stderr, "class tests: %v\n", err)
		os.Exit(2)
	}
	// Open to all: the sandbox users run the lab from there.
	testkit.MainInOpenTemp(m, "class tests", "mcplab-class-test-", func(dir string) error {
		labDir = dir
		return nil
	})
}
