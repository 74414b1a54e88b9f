package class_test

import (
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/internal/testkit"
)

// init gives every test of the package, and every lab it starts, a record
// key of its own user's outside the home folder (see
// testkit.UseTestRecordKey).
func init() { testkit.UseTestRecordKey(class.RecordKeyEnv) }
