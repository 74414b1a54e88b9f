package class_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// httpHelpdesk builds lesson 4's test server (the help desk over HTTP,
// whose -mistake flag makes one mistake), static, so that it runs in the
// container sandbox's image too.
var httpHelpdesk = sync.OnceValues(func() (string, error) {
	return testkit.GoBuildStatic(labDir, "httphelpdesk", "../httpserverlesson/testdata/httphelpdesk")
})

// httpClass is a lesson 4 class: each submission holds the test server,
// a copy of the help desk's data and a run script that starts the server
// with its mistake, if any.
func httpClass(t testing.TB, mistakes map[string]string) string {
	t.Helper()
	exe, err := httpHelpdesk()
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]string{}
	for name, mistake := range mistakes {
		runs[name] = "#!/bin/sh\nd=\"$(dirname \"$0\")\"\nexec \"$d/server\" -mistake '" + mistake + "' -data \"$d/data\"\n"
	}
	return programClass(t, exe, "server", runs, func(dir string) {
		testkit.CopyTree(t, "../../lessons/02-json-rpc-on-the-wire/data", filepath.Join(dir, "data"))
	})
}

// checkHTTPClass grades a lesson 4 class in sb and checks each student's
// failed checks, exactly, with none skipped: the port, the two copies in
// sandboxes of their own, the tunnels to them and SIGTERM must all reach
// the server. With scale 0 the deadlines are calibrated on the lab's own
// server, run in the same sandbox behind the same tunnel.
func checkHTTPClass(t *testing.T, sb sandbox.Sandbox, scale float64) {
	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	mistakes := map[string]string{"good": "", "stateful": "stateful-cursor", "no-origin": "no-origin-check"}
	subs := httpClass(t, mistakes)
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	c, err := class.Grade(ctx, subs, class.Options{Kinds: kinds.Builtin(), Lesson: 4, Sandbox: sb, Jobs: 3,
		Reference: []string{bin, "serve", "helpdesk", "--http", "127.0.0.1:$PORT"}, TimeScale: scale})
	if err != nil {
		t.Fatal(err)
	}
	checkFailedSets(t, c, map[string][]string{"good": nil, "stateful": {"stateless.any-copy"}, "no-origin": {"security.origin"}})
	if scale == 0 && (c.Calibration == nil || c.Calibration.Scale < 1) {
		t.Errorf("calibration %+v, want a scale measured on the reference server", c.Calibration)
	}
}

func TestHTTPClassProcessSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grading an HTTP server class takes about a minute")
	}
	t.Parallel()
	checkHTTPClass(t, processSandbox(t), 2) // the container test calibrates
}

func TestHTTPClassContainerSandbox(t *testing.T) {
	sb := containerSandbox(t)
	t.Parallel()
	checkHTTPClass(t, sb, 0)
}
