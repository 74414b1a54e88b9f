package class_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// checkHiddenPath grades a submission whose run script names a server
// outside the class folder, which works by hand: the problem names the
// path, says the sandbox hides it and why, and does not send the student
// to run by hand what works by hand.
func checkHiddenPath(t *testing.T, sb sandbox.Sandbox) {
	elsewhere := filepath.Join(testkit.OpenDir(t), "server.sh")
	if err := os.WriteFile(elsewhere, []byte("#!/bin/sh\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	subs := classOf(t, map[string]string{"far/run": "#!/bin/sh\nexec sh " + elsewhere + "\n"})
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Sandbox: sb, TimeScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Students[0].Result
	if r.Gradable || r.Outcome.Kind != grading.OutcomeCouldNotStart {
		t.Fatalf("gradable %v, outcome %s, want could-not-start: %s", r.Gradable, r.Outcome.Kind, r.Problem)
	}
	for _, w := range []string{"Its stderr names " + elsewhere + ", which the grader's sandbox hides from it: ",
		"copy server.sh into the submission", `"$(dirname "$0")/server.sh"`} {
		if !strings.Contains(r.Problem, w) {
			t.Errorf("problem:\n%s\nwant it to contain:\n%s", r.Problem, w)
		}
	}
	if strings.Contains(r.Problem, "run the same command by hand") {
		t.Errorf("problem sends the student to run by hand what works by hand:\n%s", r.Problem)
	}
}

func TestHiddenPathExplainedProcessSandbox(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only then does the process sandbox hide the machine's /tmp from a program")
	}
	t.Parallel()
	checkHiddenPath(t, processSandbox(t))
}

func TestHiddenPathExplainedContainerSandbox(t *testing.T) {
	t.Parallel()
	checkHiddenPath(t, containerSandbox(t))
}
