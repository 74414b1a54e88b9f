package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcplab/mcplab/grading/class"
)

// init gives every test of the package, and every lab it starts, a record
// key of its own user's outside the home folder, unless one is named
// already: no test makes ~/.config/mcplab/record-key.
func init() {
	if os.Getenv(class.RecordKeyEnv) == "" {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("mcplab-test-record-key-%d", os.Geteuid()))
		os.Setenv(class.RecordKeyEnv, filepath.Join(dir, "record-key"))
	}
}
