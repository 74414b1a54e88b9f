package interop_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/internal/testkit/gradekit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// nodeServerDir is the folder of the helpdesk on the pinned TypeScript
// server SDK v2.
const nodeServerDir = "node-server"

// nodeServerV1Dir is the folder of the helpdesk on the pinned TypeScript
// SDK's v1 line, @modelcontextprotocol/sdk.
const nodeServerV1Dir = "node-server-v1"

// sdkGrades is how many times each SDK helpdesk is graded: every grade must
// fail the same checks, with the same score.
const sdkGrades = 5

// sdkTableHeading heads the section of README.md whose table says, per
// SDK, which of lesson 2's checks its helpdesk fails and why.
const sdkTableHeading = "## What lesson 2's grader says about each SDK"

// sdkPeer is a lesson-2 helpdesk written on one SDK.
type sdkPeer struct {
	name    string // as the README's table names it
	command func(t *testing.T) proc.Command
}

// sdkPeers are the four SDK helpdesks: go-sdk and mcp-go at the versions
// go.mod pins (the benchmark's peers, built by goPeers, see
// helpdesk_bench_test.go), the TypeScript SDK v2 at the version
// node-server/package-lock.json pins, and the TypeScript SDK v1 at the
// version node-server-v1/package-lock.json pins.
func sdkPeers(goPeers func(t *testing.T) string) []sdkPeer {
	goPeer := func(sdk string) func(t *testing.T) proc.Command {
		return func(t *testing.T) proc.Command {
			return proc.Command{Path: goPeers(t), Args: []string{sdk, lessonData(t)}}
		}
	}
	return []sdkPeer{
		{name: "go-sdk v1.8.0", command: goPeer("go-sdk")},
		{name: "mcp-go v1.2.1", command: goPeer("mcp-go")},
		{name: "TypeScript server 2.4.0", command: nodePeer(nodeServerDir, nodeServer)},
		{name: "TypeScript SDK 1.32.2", command: nodePeer(nodeServerV1Dir, nodeServerV1)},
	}
}

// nodePeer is the command of the helpdesk.mjs in the folder dir (of
// interop), once install has installed that folder's pinned packages. A
// machine without Node skips the test that asks for it.
func nodePeer(dir string, install func() error) func(t *testing.T) proc.Command {
	return nodeScript(dir, "helpdesk.mjs", install)
}

// nodeScript is the command of the script in the folder dir (of interop),
// given lesson 2's data, once install has installed that folder's pinned
// packages. A machine without Node skips the test that asks for it.
func nodeScript(dir, script string, install func() error) func(t *testing.T) proc.Command {
	return func(t *testing.T) proc.Command {
		if err := install(); err != nil {
			if err == errNoNode {
				t.Skip(err)
			}
			t.Fatal(err)
		}
		node, err := exec.LookPath("node")
		if err != nil {
			t.Skip(errNoNode)
		}
		path, err := filepath.Abs(filepath.Join(dir, script))
		if err != nil {
			t.Fatal(err)
		}
		return proc.Command{Path: node, Args: []string{path, lessonData(t)}}
	}
}

// lessonData is lesson 2's data folder, which every helpdesk serves.
func lessonData(t *testing.T) string {
	return filepath.Join(moduleRoot(t), "lessons", "02-json-rpc-on-the-wire", "data")
}

// nodeServer installs the pinned TypeScript server SDK, once per test
// binary: `npm ci` runs only when node_modules was not installed from the
// package-lock.json as it is now.
var nodeServer = sync.OnceValue(func() error { return npmInstall(nodeServerDir) })

// nodeServerV1 installs the pinned TypeScript SDK v1 the same way, once per
// test binary.
var nodeServerV1 = sync.OnceValue(func() error { return npmInstall(nodeServerV1Dir) })

// TestLesson2SDKServers grades each SDK helpdesk with lesson 2's checks
// sdkGrades times. Each grade must fail exactly the checks README.md's table
// names for that SDK, every one of them traced there to what the SDK does,
// and every grade must give the same score.
func TestLesson2SDKServers(t *testing.T) {
	// Beside the load trial, the other long grading test: both mostly wait,
	// and both hold their verdicts whatever runs beside them.
	t.Parallel()
	table, err := readSDKTable(sdkTableHeading)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var build sync.Mutex
	goPeers := func(t *testing.T) string {
		build.Lock()
		defer build.Unlock()
		return buildPeerHelpdesk(t, dir) // built once: it returns the binary once there is one
	}
	for _, p := range sdkPeers(goPeers) {
		t.Run(p.name, func(t *testing.T) {
			// The SDKs, and the grades of each, run at the same time: a
			// grade mostly waits (for answers, for exits), and every grade
			// must give the same verdicts whatever else runs beside it.
			t.Parallel()
			want := sdkWant(t, table, sdkTableHeading, p.name)
			cmd := p.command(t)
			// Twenty grades of four SDKs run at once beside the rest of CI:
			// deadlines × 4, so a Node server slowed by that load still exits
			// within its deadline (at × 2 one took over 4 s in CI).
			results := gradeAtOnce(t, sdkGrades, grading.Options{Lesson: 2, Student: cmd, TimeScale: 4})
			var scores []int
			for i, res := range results {
				scores = append(scores, res.Score)
				if got := res.Failed(); !reflect.DeepEqual(sorted(got), want) {
					t.Errorf("grade %d: failed %v, README.md says %v", i+1, sorted(got), want)
					for _, c := range res.Checks {
						if c.Status != grading.StatusPass {
							t.Logf("%s %s: %s", c.Status, c.ID, c.Message)
						}
					}
				}
			}
			for _, s := range scores[1:] {
				if s != scores[0] {
					t.Errorf("scores %v: not the same every grade", scores)
					break
				}
			}
			t.Logf("%s: %d/%d every grade of %d", p.name, scores[0], gradekit.FullMarks(t, 2), sdkGrades)
		})
	}
}

// gradeAtOnce grades opts n times at once and returns the results, failing
// the test at the first grade that gave an error or could not be graded.
func gradeAtOnce(t *testing.T, n int, opts grading.Options) []*grading.Result {
	t.Helper()
	results := make([]*grading.Result, n)
	errs := make([]error, n)
	var grades sync.WaitGroup
	for i := range n {
		grades.Go(func() { results[i], errs[i] = kinds.Grade(t.Context(), opts) })
	}
	grades.Wait()
	for i, res := range results {
		if errs[i] != nil {
			t.Fatalf("grade %d: %v", i+1, errs[i])
		}
		if !res.Gradable {
			t.Fatalf("grade %d: not gradable: %s", i+1, res.Problem)
		}
	}
	return results
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	if len(out) == 0 {
		return nil
	}
	return out
}

// readSDKTable reads the table of README.md's section under heading, on
// one lesson's grader: one row per check an SDK fails, a column per SDK
// whose cell says why (or "passes"). It returns, per SDK, the checks it
// fails, sorted (see readSDKTableSkips for the cells that say "not
// judged").
func readSDKTable(heading string) (map[string][]string, error) {
	fails, _, err := readSDKTableSkips(heading)
	return fails, err
}

// readSDKTableSkips is readSDKTable, with, per SDK, the checks whose cell
// starts "not judged" (the grader skips them, since the evidence they need
// rests on an answer another check is charged for) apart from the fails.
func readSDKTableSkips(heading string) (fails, skips map[string][]string, err error) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		return nil, nil, fmt.Errorf("reading README.md: %w", err)
	}
	_, section, ok := strings.Cut(string(b), heading+"\n")
	if !ok {
		return nil, nil, fmt.Errorf("README.md has no section %q", heading)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var header []string
	out, skipped := map[string][]string{}, map[string][]string{}
	check := regexp.MustCompile("^`([a-z0-9.-]+)`$")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := testkit.TableCells(line)
		switch {
		case header == nil:
			header = cells
			for _, h := range header[1:] {
				out[h] = nil
			}
		case strings.HasPrefix(cells[0], "---"):
		default:
			m := check.FindStringSubmatch(cells[0])
			if m == nil || len(cells) != len(header) {
				return nil, nil, fmt.Errorf("README.md's table row %q: want a check id in backquotes and %d cells", line, len(header))
			}
			for i, cell := range cells[1:] {
				switch {
				case strings.HasPrefix(cell, "not judged"):
					skipped[header[i+1]] = append(skipped[header[i+1]], m[1])
				case cell != "passes":
					out[header[i+1]] = append(out[header[i+1]], m[1])
				}
			}
		}
	}
	if header == nil {
		return nil, nil, fmt.Errorf("README.md's section %q has no table", heading)
	}
	for k := range out {
		sort.Strings(out[k])
		sort.Strings(skipped[k])
	}
	return out, skipped, nil
}

// sdkWant is the failing set README.md's table (under heading) gives the
// SDK name; a peer the table has no column for fails the test, rather than
// being expected to pass everything.
func sdkWant(t *testing.T, table map[string][]string, heading, name string) []string {
	t.Helper()
	want, ok := table[name]
	if !ok {
		t.Fatalf("README.md's table %q has no column for %s", heading, name)
	}
	return want
}
