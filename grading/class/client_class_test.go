package class_test

import (
	"context"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// studentClient builds lesson 3's test client (grading's, whose -mistake
// flag makes one mistake), static, so that it runs in the container
// sandbox's image too.
var studentClient = sync.OnceValues(func() (string, error) {
	return testkit.GoBuildStatic(labDir, "student-client", "../testdata/clients/student")
})

// clientClass is a lesson 3 class: each submission holds the test client
// and a run script that starts it with its mistake, if any.
func clientClass(t *testing.T, mistakes map[string]string) string {
	t.Helper()
	exe, err := studentClient()
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]string{}
	for name, mistake := range mistakes {
		runs[name] = "#!/bin/sh\nexec \"$(dirname \"$0\")/client\" \"$@\"\n"
		if mistake != "" {
			runs[name] = "#!/bin/sh\nexec \"$(dirname \"$0\")/client\" -mistake " + mistake + " \"$@\"\n"
		}
	}
	return programClass(t, exe, "client", runs, nil)
}

// checkClientClass grades a lesson 3 class (with scale 0, calibrating
// against the lab's own client as grade-class does), and checks each student's failed and
// skipped checks: the relay, the bridge to the HTTP servers and the
// configuration must all reach the client inside the sandbox.
func checkClientClass(t *testing.T, sb sandbox.Sandbox, scale float64) {
	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	subs := clientClass(t, map[string]string{"good": "", "no-truncate": "no-truncate", "no-kill": "no-kill", "first-event": "first-event"})
	c, err := class.Grade(context.Background(), subs, class.Options{Kinds: kinds.Builtin(), Lesson: 3, Sandbox: sb, Jobs: 4, Reference: []string{bin, "client"}, TimeScale: scale})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"good": nil, "no-truncate": {"truncation"}, "no-kill": {"timeout-teardown"}, "first-event": {"response-by-id"}}
	checkFailedSets(t, c, want)
	for _, st := range c.Students {
		for _, f := range st.Flags {
			t.Errorf("%s: flagged %s", st.Name, f)
		}
	}
	if scale == 0 && (c.Calibration == nil || c.Calibration.Scale < 1) {
		t.Errorf("calibration %+v, want a scale measured on the reference client", c.Calibration)
	}
}

func TestClientClassProcessSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grading a client class takes about a minute")
	}
	t.Parallel()
	checkClientClass(t, processSandbox(t), 2) // the container test calibrates
}

func TestClientClassContainerSandbox(t *testing.T) {
	sb := containerSandbox(t)
	t.Parallel()
	checkClientClass(t, sb, 0)
}
