package serverlesson_test

import (
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
)

// tempRoot holds the binaries the tests build; TestMain removes it.
var tempRoot string

func TestMain(m *testing.M) {
	testkit.MainInTemp(m, "mcplab-grading-test-", func(dir string) { tempRoot = dir })
}

func osMkdirTemp() (string, error) { return tempRoot, nil }
