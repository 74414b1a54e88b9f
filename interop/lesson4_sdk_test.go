package interop_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/testkit/gradekit"
	"github.com/mcplab/mcplab/lab/proc"
)

// lesson4TableHeading heads the section of README.md whose table says, per
// SDK, which of lesson 4's checks its Streamable HTTP help desk fails and
// why.
const lesson4TableHeading = "## What lesson 4's grader says about each SDK"

// lesson4Grades is how many times each SDK's HTTP help desk is graded:
// every grade must fail the same checks.
const lesson4Grades = 3

// TestLesson4SDKServers grades the help desk on each SDK's own Streamable
// HTTP handler, in its stateless mode and served as its examples serve it
// (peerHelpdeskSource's go-sdk-http and mcp-go-http, and the TypeScript
// server SDK's createMcpHandler in node-server/helpdesk-http.mjs),
// with lesson 4's checks, lesson4Grades times at once: code nobody here
// wrote for the grader, graded as a student's server is. Each grade must
// fail exactly the checks README.md's table names for that SDK, every one
// traced there to what the SDK does, and leave unjudged exactly the
// checks the table says are not judged.
func TestLesson4SDKServers(t *testing.T) {
	t.Parallel()
	table, skips, err := readSDKTableSkips(lesson4TableHeading)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var build sync.Mutex
	goPeer := func(mode string) func(t *testing.T) proc.Command {
		return func(t *testing.T) proc.Command {
			build.Lock()
			bin := buildPeerHelpdesk(t, dir) // built once: it returns the binary once there is one
			build.Unlock()
			return proc.Command{Path: bin, Args: []string{mode, lessonData(t)}}
		}
	}
	for _, p := range []sdkPeer{
		{name: "go-sdk v1.8.0", command: goPeer("go-sdk-http")},
		{name: "mcp-go v1.2.1", command: goPeer("mcp-go-http")},
		{name: "TypeScript server 2.4.0", command: nodeScript(nodeServerDir, "helpdesk-http.mjs", nodeServer)},
	} {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			want := sdkWant(t, table, lesson4TableHeading, p.name)
			cmd := p.command(t)
			// EndGroup: the grader ends each copy with SIGTERM, as lesson 4
			// says, and its process group after it.
			cmd.EndGroup = true
			results := gradeAtOnce(t, lesson4Grades, grading.Options{Lesson: 4, Student: cmd, TimeScale: 2})
			for i, res := range results {
				if got := res.Failed(); !reflect.DeepEqual(sorted(got), want) {
					t.Errorf("grade %d: failed %v, README.md says %v", i+1, sorted(got), want)
					for _, c := range res.Checks {
						if c.Status != grading.StatusPass {
							t.Logf("%s %s: %s", c.Status, c.ID, c.Message)
						}
					}
				}
				var skipped []string
				for _, c := range res.Checks {
					if c.Status == grading.StatusSkip {
						skipped = append(skipped, c.ID)
					}
				}
				if !reflect.DeepEqual(sorted(skipped), sorted(skips[p.name])) {
					t.Errorf("grade %d: not judged %v, README.md says %v", i+1, sorted(skipped), sorted(skips[p.name]))
				}
			}
			t.Logf("%s: %d/%d, %d grades", p.name, results[0].Score, gradekit.FullMarks(t, 4), lesson4Grades)
		})
	}
}
