package clientlesson_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// wrapLocal is a starter that, like a sandbox's, runs its program behind
// the bridge (proc.WrapStarter), here without a sandbox: the grader's
// side of the bridge, its report socket and its relay copy are the same.
type wrapLocal struct{ c proc.Command }

func (w wrapLocal) Start(ctx context.Context) (proc.Process, error) { return w.c.Start(ctx) }

func (w wrapLocal) Wrap(_ string, before, after []string) proc.Starter {
	c := w.c
	args := append(append([]string(nil), before[1:]...), c.Path)
	c.Path, c.Args = before[0], append(append(args, c.Args...), after...)
	return c
}

var _ proc.WrapStarter = wrapLocal{}

// A client that kills its bridge (kill -9 $PPID) once its stdio servers
// are left running hides them from the bridge's report; the grader sees a
// bridge that ended without one, which fails timeout-teardown alone, with
// a message that says the watcher was ended and how to fix it.
func TestClientThatKillsItsBridge(t *testing.T) {
	hostile := bin(t, "hostile-client")
	student := bin(t, "student-client")
	res := grade(t, wrapLocal{proc.Command{Path: hostile, Args: []string{"-attack", "kill-bridge", "-client", student}}},
		grading.Options{Lesson: 3, Relay: []string{bin(t, "lab"), "relay"}})
	checkClient(t, res, grading.OutcomeWrongAnswers, 13, []string{"timeout-teardown"}, nil)
	for _, c := range res.Checks {
		if c.ID != "timeout-teardown" {
			continue
		}
		for _, want := range []string{"was ended by signal killed before it could report", "its watcher was ended", "do not kill or stop your parent"} {
			if !strings.Contains(c.Message+" "+c.Expected, want) {
				t.Errorf("timeout-teardown says %q (expected %q), which does not say %q", c.Message, c.Expected, want)
			}
		}
	}
}

// The same client with no attack, behind the same bridge, passes: the
// bridge's report comes, and says nothing was left running.
func TestClientBehindBridgeGetsFullMarks(t *testing.T) {
	student := bin(t, "student-client")
	res := grade(t, wrapLocal{proc.Command{Path: student}}, grading.Options{Lesson: 3, Relay: []string{bin(t, "lab"), "relay"}})
	checkClient(t, res, grading.OutcomePassed, 14, nil, nil)
}

// A client that stops its bridge (kill -STOP $PPID) is caught too: the
// bridge never exits, so the grader asks it, and a stopped bridge does
// not answer. One scenario is enough (each costs the exit deadline).
func TestClientThatStopsItsBridge(t *testing.T) {
	hostile := bin(t, "hostile-client")
	student := bin(t, "student-client")
	lesson := fstest.MapFS{}
	for _, f := range []string{"lesson.txt", "grading/checks.txtar", "grading/everyday.txtar"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "lessons", "03-wiring-up-mcp", f))
		if err != nil {
			t.Fatal(err)
		}
		lesson[f] = &fstest.MapFile{Data: data}
	}
	res := grade(t, wrapLocal{proc.Command{Path: hostile, Args: []string{"-attack", "stop-bridge", "-client", student}}},
		grading.Options{Lesson: 3, LessonDir: lesson, Relay: []string{bin(t, "lab"), "relay"}})
	var teardown *grading.CheckResult
	for i, c := range res.Checks {
		if c.ID == "timeout-teardown" {
			teardown = &res.Checks[i]
		}
	}
	if teardown == nil || teardown.Status != grading.StatusFail {
		t.Fatalf("timeout-teardown: %+v, want a failure", teardown)
	}
	for _, want := range []string{"answered nothing when the grader asked it", "it had been stopped", "do not kill or stop your parent"} {
		if !strings.Contains(teardown.Message+" "+teardown.Expected, want) {
			t.Errorf("timeout-teardown says %q (expected %q), which does not say %q", teardown.Message, teardown.Expected, want)
		}
	}
}
