//go:build unix

package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// conformanceDir holds the pinned npm peers of the HTTP tests: the official
// conformance suite, the Node 22 it needs (the `node` npm package), and the
// TypeScript client.
const conformanceDir = "conformance"

// conformanceSpec is the revision the suite runs at.
const conformanceSpec = "2026-07-28"

// conformanceBaseline is the committed list of checks the ticket system is
// expected to fail, each with its reason.
const conformanceBaseline = "conformance/baseline.yml"

// nodePeers is an installed interop/conformance.
type nodePeers struct {
	dir  string // interop/conformance, absolute
	node string // Node 22, from the node npm package
}

// errNPMUnreachable is the one reason the HTTP tests with npm peers skip.
var errNPMUnreachable = errors.New("npm cannot install the pinned peers")

// installNodePeers runs `npm ci` in interop/conformance once per test
// binary, and only when node_modules was not installed from the
// package-lock.json as it is now. A file lock keeps two test processes in
// one checkout from installing at once.
var installNodePeers = sync.OnceValues(func() (nodePeers, error) {
	dir, err := filepath.Abs(conformanceDir)
	if err != nil {
		return nodePeers{}, err
	}
	p := nodePeers{dir: dir, node: filepath.Join(dir, "node_modules", ".bin", "node")}
	if _, err := exec.LookPath("npm"); err != nil {
		return p, fmt.Errorf("%w: npm is not on PATH", errNPMUnreachable)
	}
	lockFile, err := os.OpenFile(filepath.Join(dir, ".npm-install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return p, err
	}
	defer lockFile.Close()
	if err := syscall.Flock(int(lockFile.Fd()), syscall.LOCK_EX); err != nil {
		return p, fmt.Errorf("locking %s: %w", lockFile.Name(), err)
	}
	defer syscall.Flock(int(lockFile.Fd()), syscall.LOCK_UN)

	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return p, err
	}
	sum := sha256.Sum256(lock)
	want := hex.EncodeToString(sum[:])
	stamp := filepath.Join(dir, "node_modules", ".mcplab-lock-sha256")
	if have, err := os.ReadFile(stamp); err != nil || strings.TrimSpace(string(have)) != want {
		// Install scripts stay on: the node package's preinstall is what
		// puts Node 22 in node_modules/.bin.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			if unreachable.Match(out) {
				return p, fmt.Errorf("%w: npm ci in interop/conformance found no registry: %s", errNPMUnreachable, unreachable.Find(out))
			}
			return p, fmt.Errorf("npm ci in interop/conformance: %v\n%s", err, out)
		}
		if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
			return p, err
		}
	}
	wantNode, err := pinnedNode(dir)
	if err != nil {
		return p, err
	}
	out, err := exec.Command(p.node, "--version").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != "v"+wantNode {
		return p, fmt.Errorf("%s --version = %q (%v), want v%s: the node package's preinstall script did not put Node in place (does npm run install scripts here?)", p.node, got, err, wantNode)
	}
	return p, nil
})

// unreachable matches the errors npm prints when it cannot reach its
// registry at all.
var unreachable = regexp.MustCompile(`(?m)^.*\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b.*$`)

// pinnedNode is the Node version package.json pins.
func pinnedNode(dir string) (string, error) {
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		return "", fmt.Errorf("reading interop/conformance/package.json: %w", err)
	}
	v := pkg.DevDependencies["node"]
	if v == "" {
		return "", errors.New("interop/conformance/package.json pins no node")
	}
	return v, nil
}

// needNodePeers returns the installed peers, or skips the test when npm
// cannot reach its registry.
func needNodePeers(tb testing.TB) nodePeers {
	tb.Helper()
	p, err := installNodePeers()
	if errors.Is(err, errNPMUnreachable) {
		tb.Skip(err)
	} else if err != nil {
		tb.Fatal(err)
	}
	return p
}

// installedVersion is the version of an npm package in node_modules.
func (p nodePeers) installedVersion(tb testing.TB, pkg string) string {
	tb.Helper()
	var m struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(p.dir, "node_modules", pkg, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		tb.Fatalf("reading the version of %s: %v", pkg, err)
	}
	return m.Version
}

// ticketsProcess is a running `lab serve tickets`.
type ticketsProcess struct {
	url    string
	cmd    *exec.Cmd
	stderr *lockedBuffer
	exited chan error
}

// lockedBuffer collects a child's stderr while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) add(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() < 1<<20 {
		b.buf.WriteString(line + "\n")
	}
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// labEnv names an environment variable holding a built lab binary to test
// instead of building ./cmd/lab.
const labEnv = "MCPLAB_LAB"

// listeningLine is how `lab serve tickets` says where it listens.
var listeningLine = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp) `)

// startLabTickets builds the lab (with the race detector when the tests
// run with it), or takes $MCPLAB_LAB, and runs `lab serve tickets --http
// 127.0.0.1:0`: the kernel picks a free loopback port and the server names
// it on stderr. At cleanup the server is interrupted and must stop cleanly.
func startLabTickets(t *testing.T) *ticketsProcess {
	t.Helper()
	bin := os.Getenv(labEnv)
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "lab")
		args := []string{"-o", bin, "./cmd/lab"}
		if raceBuild {
			args = append([]string{"-race"}, args...)
		}
		goBuild(t, moduleRoot(t), nil, args...)
	}
	cmd := exec.Command(bin, "serve", "tickets", "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &ticketsProcess{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.stderr.add(sc.Text())
			if m := listeningLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case ready <- m[1]:
				default:
				}
			}
		}
		p.exited <- cmd.Wait()
	}()
	t.Cleanup(func() { p.stop(t) })
	select {
	case p.url = <-ready:
	case err := <-p.exited:
		p.exited <- err
		t.Fatalf("lab serve tickets exited before it listened: %v\nstderr:\n%s", err, p.stderr)
	case <-time.After(time.Minute):
		t.Fatalf("lab serve tickets did not say where it listens within a minute\nstderr:\n%s", p.stderr)
	}
	return p
}

// stop interrupts the server and checks that it stops cleanly.
func (p *ticketsProcess) stop(t *testing.T) {
	select {
	case err := <-p.exited:
		p.exited <- err
		if p.url != "" {
			t.Errorf("lab serve tickets stopped on its own while the test ran: %v\nstderr:\n%s", err, p.stderr)
		}
		return
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil || !strings.Contains(p.stderr.String(), "tickets: stopped") {
			t.Errorf("lab serve tickets did not stop cleanly on interrupt: %v\nstderr:\n%s", err, p.stderr)
		}
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		t.Errorf("lab serve tickets was still running a minute after the interrupt; killed\nstderr:\n%s", p.stderr)
	}
}

// baselineEntry is one expected failure: a check of a scenario, and why.
type baselineEntry struct {
	scenario, check, reason string
}

func (e baselineEntry) key() string { return e.scenario + ":" + e.check }

// baselineLine is one entry of baseline.yml: `  - scenario:check  # reason`.
var baselineLine = regexp.MustCompile(`^  - ([a-z0-9-]+):([a-z0-9-]+)\s+#\s*(\S.*)$`)

// readConformanceBaseline reads baseline.yml. The suite reads the same file
// as YAML; this reader accepts only the shape the file keeps (comments, one
// `server:` key, one entry a line with its reason), so that an entry without
// a reason, or one the suite would read differently, is an error here.
func readConformanceBaseline(path string) (map[string]baselineEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	entries := map[string]baselineEntry{}
	server := false
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case line == "server:":
			server = true
		case server && baselineLine.MatchString(line):
			m := baselineLine.FindStringSubmatch(line)
			e := baselineEntry{scenario: m[1], check: m[2], reason: m[3]}
			if _, dup := entries[e.key()]; dup {
				return nil, fmt.Errorf("%s:%d: %s is listed twice", path, i+1, e.key())
			}
			entries[e.key()] = e
		default:
			return nil, fmt.Errorf("%s:%d: %q is not `  - scenario:check-id  # reason` under `server:`; every expected failure names one check and says why", path, i+1, line)
		}
	}
	return entries, nil
}

// suiteCheck is one check in a scenario's checks.json.
type suiteCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// failing reports whether the suite counts a check's status as a failure
// when it compares with a baseline: FAILURE and WARNING.
func failing(status string) bool { return status == "FAILURE" || status == "WARNING" }

// severity orders statuses the way the suite collapses a repeated check id.
func severity(status string) int {
	switch status {
	case "FAILURE":
		return 3
	case "WARNING":
		return 2
	case "SUCCESS":
		return 1
	}
	return 0
}

// collapse keeps one status per check id, the most severe, and drops INFO
// checks, as the suite does before it compares with a baseline.
func collapse(checks []suiteCheck) map[string]suiteCheck {
	byID := map[string]suiteCheck{}
	for _, c := range checks {
		if c.Status == "INFO" {
			continue
		}
		if have, ok := byID[c.ID]; !ok || severity(c.Status) >= severity(have.Status) {
			byID[c.ID] = c
		}
	}
	return byID
}

// resultDir is the folder the suite writes a server scenario's results to.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// readSuiteResults reads every scenario's checks.json under dir.
func readSuiteResults(dir string) (map[string][]suiteCheck, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	results := map[string][]suiteCheck{}
	for _, e := range ents {
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		if _, dup := results[m[1]]; dup {
			return nil, fmt.Errorf("scenario %s has two result folders in %s", m[1], dir)
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", m[1], err)
		}
		var checks []suiteCheck
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("scenario %s: checks.json: %w", m[1], err)
		}
		results[m[1]] = checks
	}
	return results, nil
}

// scenarioVerdict is one scenario compared with the baseline.
type scenarioVerdict struct {
	scenario   string
	passed     int             // checks that passed (INFO not counted)
	failed     []suiteCheck    // checks that failed, expected or not
	unexpected []suiteCheck    // failed and not in the baseline
	stale      []baselineEntry // in the baseline and passed
	expected   map[string]baselineEntry
}

// compareScenario holds one scenario's checks against the baseline, with
// the suite's rules: a failing check must be listed, a listed check must
// not pass, and a listed check that did not run is tolerated.
func compareScenario(scenario string, checks []suiteCheck, baseline map[string]baselineEntry) scenarioVerdict {
	v := scenarioVerdict{scenario: scenario, expected: map[string]baselineEntry{}}
	byID := collapse(checks)
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := byID[id]
		e, listed := baseline[scenario+":"+id]
		switch {
		case failing(c.Status):
			v.failed = append(v.failed, c)
			if listed {
				v.expected[id] = e
			} else {
				v.unexpected = append(v.unexpected, c)
			}
		case c.Status == "SUCCESS":
			v.passed++
			if listed {
				v.stale = append(v.stale, e)
			}
		}
	}
	return v
}

func (v scenarioVerdict) ok() bool { return len(v.unexpected) == 0 && len(v.stale) == 0 }

// timedChecks are checks whose probe the suite aborts after a fixed 0.8 to
// 1.5 s, however busy the machine: a server that answers at once can still
// miss that on a loaded machine, and the check then fails instead of being
// skipped. A scenario whose only surprises are these is run once more, alone.
var timedChecks = map[string]bool{
	"server-stateless:sep-2575-server-sends-subscription-ack":     true,
	"server-stateless:sep-2575-server-tags-subscription-id":       true,
	"server-stateless:sep-2575-server-honors-notification-filter": true,
}

func (v scenarioVerdict) onlyTimedSurprises() bool {
	if len(v.stale) > 0 || len(v.unexpected) == 0 {
		return false
	}
	for _, c := range v.unexpected {
		if !timedChecks[v.scenario+":"+c.ID] {
			return false
		}
	}
	return true
}

// suiteRun is one run of the suite's CLI.
type suiteRun struct {
	results   map[string][]suiteCheck
	output    string
	exitCode  int
	announced int // the scenario count the CLI announced, 0 for one scenario
}

var announcedCount = regexp.MustCompile(`Running \w+ suite \((\d+) scenarios\)`)

// runConformanceSuite runs the suite's server scenarios against url, at
// conformanceSpec, with the baseline as its expected failures: every
// scenario of the "all" suite, or just one.
func runConformanceSuite(t *testing.T, p nodePeers, url, scenario string) suiteRun {
	t.Helper()
	out := t.TempDir()
	baseline, err := filepath.Abs(conformanceBaseline)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(p.dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", url, "--spec-version", conformanceSpec, "--expected-failures", baseline, "-o", out}
	if scenario == "" {
		args = append(args, "--suite", "all")
	} else {
		args = append(args, "--scenario", scenario)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.node, args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(p.dir, "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	run := suiteRun{}
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || ctx.Err() != nil {
			t.Fatalf("conformance suite: %v\n%s", err, buf.String())
		}
		run.exitCode = exit.ExitCode()
	}
	run.output = buf.String()
	if m := announcedCount.FindStringSubmatch(run.output); m != nil {
		fmt.Sscan(m[1], &run.announced)
	}
	if run.results, err = readSuiteResults(out); err != nil {
		t.Fatalf("reading the suite's results: %v\nsuite output:\n%s", err, run.output)
	}
	return run
}

// TestConformanceSuite runs the official MCP conformance suite's server
// scenarios at 2026-07-28 against `lab serve tickets`, and holds every
// check to the committed baseline: a check that newly fails, or a
// baselined one that now passes, fails the test and says which and why.
func TestConformanceSuite(t *testing.T) {
	p := needNodePeers(t)
	baseline, err := readConformanceBaseline(conformanceBaseline)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("@modelcontextprotocol/conformance %s on Node %s", p.installedVersion(t, "@modelcontextprotocol/conformance"), p.installedVersion(t, "node"))
	server := startLabTickets(t)
	run := runConformanceSuite(t, p, server.url, "")
	if run.announced == 0 || len(run.results) != run.announced {
		t.Fatalf("the suite announced %d scenarios and left results for %d\nsuite output:\n%s", run.announced, len(run.results), run.output)
	}
	for key, e := range baseline {
		if _, ok := run.results[e.scenario]; !ok {
			t.Errorf("baseline entry %s names a scenario the suite did not run: remove it, or find out why the scenario is gone", key)
		}
	}

	scenarios := make([]string, 0, len(run.results))
	for s := range run.results {
		scenarios = append(scenarios, s)
	}
	slices.Sort(scenarios)
	verdicts := make([]scenarioVerdict, 0, len(scenarios))
	rerun := false
	for _, s := range scenarios {
		v := compareScenario(s, run.results[s], baseline)
		if v.onlyTimedSurprises() {
			t.Logf("%s: %s failed a check whose probe the suite times out after at most 1.5 s; running the scenario once more, alone", s, v.unexpected[0].ID)
			again := runConformanceSuite(t, p, server.url, s)
			v = compareScenario(s, again.results[s], baseline)
			rerun = true
		}
		verdicts = append(verdicts, v)
	}

	var table strings.Builder
	table.WriteString("| scenario | checks passed | checks failed | verdict |\n|---|---|---|---|\n")
	surprises := 0
	for _, v := range verdicts {
		verdict := "pass"
		if len(v.failed) > 0 {
			var ids []string
			for _, c := range v.failed {
				ids = append(ids, "`"+c.ID+"`")
			}
			verdict = "fails, as the baseline expects: " + strings.Join(ids, ", ")
		}
		if !v.ok() {
			verdict = "**differs from the baseline**"
		}
		fmt.Fprintf(&table, "| %s | %d | %d | %s |\n", v.scenario, v.passed, len(v.failed), verdict)
		for _, c := range v.unexpected {
			surprises++
			t.Errorf("%s:%s newly fails (%s): %s\nThe server broke a check it passed, or the suite changed. Fix the server, or add `  - %s:%s  # reason` to interop/%s with the reason.",
				v.scenario, c.ID, c.Status, c.ErrorMessage, v.scenario, c.ID, conformanceBaseline)
		}
		for _, e := range v.stale {
			surprises++
			t.Errorf("%s newly passes; it was expected to fail because %q. Remove it from interop/%s (and update the table in interop/conformance/README.md).",
				e.key(), e.reason, conformanceBaseline)
		}
	}
	t.Logf("conformance at %s against lab serve tickets:\n%s", conformanceSpec, table.String())
	// The suite's own verdict on the same baseline must agree with ours.
	if surprises == 0 && run.exitCode != 0 && !rerun {
		t.Errorf("the suite exits %d with the same baseline, but every check matched it here; its output:\n%s", run.exitCode, run.output)
	}
	if t.Failed() {
		t.Logf("suite output:\n%s\nserver stderr:\n%s", run.output, server.stderr)
	}
}

// TestConformanceBaselineRules holds the comparison to the suite's rules
// without running the suite: a WARNING fails like a FAILURE, INFO never
// counts, a repeated id takes its most severe status, a baselined check
// that is skipped or absent is tolerated, and one that passes is stale.
func TestConformanceBaselineRules(t *testing.T) {
	base := map[string]baselineEntry{}
	for _, e := range []baselineEntry{
		{"s", "expected-fail", "r1"}, {"s", "expected-skip", "r2"}, {"s", "now-passes", "r3"}, {"s", "absent", "r4"},
	} {
		base[e.key()] = e
	}
	v := compareScenario("s", []suiteCheck{
		{ID: "expected-fail", Status: "FAILURE"},
		{ID: "expected-skip", Status: "SKIPPED"},
		{ID: "now-passes", Status: "SUCCESS"},
		{ID: "warned", Status: "WARNING"},
		{ID: "repeated", Status: "SUCCESS"}, {ID: "repeated", Status: "FAILURE"}, {ID: "repeated", Status: "SUCCESS"},
		{ID: "info", Status: "INFO"},
		{ID: "fine", Status: "SUCCESS"},
	}, base)
	var unexpected, stale []string
	for _, c := range v.unexpected {
		unexpected = append(unexpected, c.ID)
	}
	for _, e := range v.stale {
		stale = append(stale, e.check)
	}
	if !slices.Equal(unexpected, []string{"repeated", "warned"}) || !slices.Equal(stale, []string{"now-passes"}) || v.passed != 2 || len(v.failed) != 3 || v.ok() {
		t.Errorf("unexpected %v, stale %v, passed %d, failed %d", unexpected, stale, v.passed, len(v.failed))
	}

	dir := t.TempDir()
	for name, body := range map[string]string{
		"no reason":   "server:\n  - a:b\n",
		"no server":   "  - a:b  # why\n",
		"scenario":    "server:\n  - a  # a whole scenario\n",
		"mapping":     "server:\n  - a: b  # YAML would read a mapping\n",
		"duplicate":   "server:\n  - a:b  # one\n  - a:b  # two\n",
		"client list": "server:\n  - a:b  # ok\nclient:\n  - c  # no\n",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readConformanceBaseline(path); err == nil {
			t.Errorf("%s: a baseline of %q was accepted", name, body)
		}
	}
	if got, err := readConformanceBaseline(conformanceBaseline); err != nil || len(got) == 0 {
		t.Errorf("the committed baseline: %d entries, %v", len(got), err)
	}
}
