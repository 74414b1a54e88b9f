package sandbox_test

import (
	"fmt"
	"os"
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
	testkit.MainInOpenTemp(m, "sandbox tests", "mcplab-sandbox-test-", func(dir string) error {
		var err error
		launcher, err = testkit.GoBuild(dir, "launcher", "./testdata/launcher")
		return err
	})
}
