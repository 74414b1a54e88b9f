package sandbox_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/internal/testkit/containers"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading/sandbox"
)

// run starts spec's program, writes input to its stdin and closes it, and
// returns what it wrote and how it ended.
type ran struct {
	stdout, stderr string
	exit           proc.Exit
}

func run(t *testing.T, s proc.Starter, input string) ran {
	t.Helper()
	p, err := s.Start(context.Background())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	var out, errOut bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = io.Copy(&out, p.Stdout()) }()
	go func() { defer wg.Done(); _, _ = io.Copy(&errOut, p.Stderr()) }()
	if _, err := io.WriteString(p.Stdin(), input); err != nil {
		t.Errorf("writing stdin: %v", err)
	}
	_ = p.Stdin().Close()
	exit := p.Wait()
	wg.Wait()
	return ran{out.String(), errOut.String(), exit}
}

func processSandbox(t *testing.T) *sandbox.Process {
	t.Helper()
	sb := sandbox.NewProcess([]string{launcher})
	t.Cleanup(func() { sb.Close() })
	return sb
}

// shSpec is a spec that runs a shell script in a fresh workspace of slot.
func shSpec(t *testing.T, sb sandbox.Sandbox, slot int, script string) sandbox.Spec {
	t.Helper()
	dir := testkit.OpenDir(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := sb.Workspace(work, slot, ""); err != nil {
		t.Fatalf("Workspace: %v", err)
	}
	t.Cleanup(func() { sandbox.RemoveWorkspace(work) })
	return sandbox.Spec{Dir: sub, Path: "/bin/sh", Args: []string{"-c", script}, Work: work, Slot: slot}
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the process sandbox switches users only as root")
	}
}

func TestProcessStdioAndEnvironment(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	spec := shSpec(t, sb, 0, `echo "work=$LAB_WORK home=$HOME"; cat; echo "log: done" >&2; exit 3`)
	r := run(t, sb.Starter(spec), "line one\nline two\n")
	want := "work=" + spec.Work + " home=" + spec.Work + "\nline one\nline two\n"
	if r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	if r.stderr != "log: done\n" {
		t.Errorf("stderr = %q", r.stderr)
	}
	if r.exit.Code != 3 || r.exit.Signal != "" {
		t.Errorf("exit = %+v, want status 3", r.exit)
	}
}

func TestProcessRunsAsTheSlotsOwnUser(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	for _, slot := range []int{0, 3} {
		spec := shSpec(t, sb, slot, `id -u; id -g; id -G; touch "$LAB_WORK/mine" && echo wrote`)
		r := run(t, sb.Starter(spec), "")
		uid, gid, err := sb.User(slot)
		if err != nil || uid < sandbox.DefaultUIDBase || uid != gid {
			t.Fatalf("User(%d) = %d, %d, %v", slot, uid, gid, err)
		}
		u := strconv.Itoa(uid)
		if want := u + "\n" + u + "\n" + u + "\nwrote\n"; r.stdout != want {
			t.Errorf("slot %d: stdout = %q, want %q (stderr %q)", slot, r.stdout, want, r.stderr)
		}
	}
}

func TestProcessSignalDeath(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	r := run(t, sb.Starter(shSpec(t, sb, 1, `kill -9 $$`)), "")
	if r.exit.Signal != "killed" || r.exit.Code != -1 {
		t.Errorf("exit = %+v, want signal killed", r.exit)
	}
}

func TestProcessCannotStart(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	spec := shSpec(t, sb, 2, "")
	spec.Path = filepath.Join(spec.Dir, "no-such-run")
	_, err := sb.Starter(spec).Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot start") || !strings.Contains(err.Error(), "no-such-run") {
		t.Errorf("Start error = %v, want one that says it cannot start no-such-run", err)
	}
}

// pidsOf returns the processes still alive (not zombies) among pids.
func alive(pids []int) []int {
	var out []int
	for _, pid := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 && s[i+2] != 'Z' {
			out = append(out, pid)
		}
	}
	return out
}

func pidsIn(t *testing.T, text string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(text) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		t.Fatalf("no pids in %q", text)
	}
	return pids
}

// A program that leaves processes behind (in its group, in a session of
// their own, detached from its parent) loses all of them when it ends.
func TestProcessLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	// The pids the program prints are the host's only outside a PID
	// namespace; TestProcessNamespaces covers what is left in one.
	sb.NoNamespaces = true
	script := `sleep 300 & echo $!
setsid sleep 301 & echo $!
( sleep 302 & echo $! ) 
exit 0`
	r := run(t, sb.Starter(shSpec(t, sb, 4, script)), "")
	if !r.exit.OK() {
		t.Fatalf("exit = %+v, stderr %q", r.exit, r.stderr)
	}
	if left := alive(pidsIn(t, r.stdout)); len(left) > 0 {
		t.Errorf("processes %v still run after the program ended", left)
	}
}

// Kill stops a program that never ends, with everything it started.
func TestProcessKill(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	// The pids the program prints are the host's only outside a PID
	// namespace; TestProcessNamespaces covers what is left in one.
	sb.NoNamespaces = true
	p, err := sb.Starter(shSpec(t, sb, 5, `sleep 300 & echo $!; setsid sleep 301 & echo $!; cat >/dev/null; sleep 303`)).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 0, 64)
	buf := make([]byte, 1)
	for strings.Count(string(line), "\n") < 2 {
		if _, err := p.Stdout().Read(buf); err != nil {
			t.Fatalf("reading the pids: %v (got %q)", err, line)
		}
		line = append(line, buf[0])
	}
	p.Kill()
	exit := p.Wait()
	if exit.Signal != "killed" {
		t.Errorf("exit = %+v, want signal killed", exit)
	}
	if left := alive(pidsIn(t, string(line))); len(left) > 0 {
		t.Errorf("processes %v still run after Kill", left)
	}
}

// forkBomb forks 300 children that sleep, prints how many forks worked and
// how many failed, and waits for its stdin to close. Python, not sh: a
// shell dies on the first fork that fails.
const forkBomb = `exec python3 -c '
import os, sys, time
made = failed = 0
for _ in range(300):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(300)
        os._exit(0)
    made += 1
print(made, failed, flush=True)
sys.stdin.read()
'`

// processesOf lists the processes of uid, as "PID NAME STATE".
func processesOf(uid int) []string {
	entries, _ := os.ReadDir("/proc")
	var procs []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		fields := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				fields[k] = strings.TrimSpace(v)
			}
		}
		if f := strings.Fields(fields["Uid"]); len(f) > 0 && f[0] == strconv.Itoa(uid) {
			procs = append(procs, e.Name()+" "+fields["Name"]+" "+fields["State"]+" ppid "+fields["PPid"])
		}
	}
	return procs
}

// A fork bomb stops at the slot's process limit, and the slot is clean
// once the program ended.
func TestProcessForkBombStops(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	spec := shSpec(t, sb, 6, forkBomb)
	spec.Limits = sandbox.Limits{Procs: 40}
	p, err := sb.Starter(spec).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil {
		errOut, _ := io.ReadAll(p.Stderr())
		t.Fatalf("reading stdout: %v (exit %+v, stderr %q)", err, p.Wait(), errOut)
	}
	var made, failed int
	if _, err := fmt.Sscan(line, &made, &failed); err != nil || made >= 40 || made+failed != 300 {
		t.Errorf("forks made and failed: %q, want fewer than 40 made", line)
	}
	uid, _, err := sb.User(6)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(processesOf(uid)); n > 40 || n < 30 {
		t.Errorf("the program has %d processes; its limit is 40", n)
	}
	_ = p.Stdin().Close()
	if exit := p.Wait(); !exit.OK() {
		t.Errorf("exit = %+v", exit)
	}
	if left := processesOf(uid); len(left) > 0 {
		t.Errorf("processes of the slot's user remain: %q", left)
	}
}

func TestProcessMemoryLimit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	sb := processSandbox(t)
	spec := shSpec(t, sb, 7, `exec python3 -c 'x = bytearray(600 << 20); print("allocated")'`)
	spec.Limits = sandbox.Limits{Memory: 128 << 20}
	r := run(t, sb.Starter(spec), "")
	if r.stdout != "" || !strings.Contains(r.stderr, "MemoryError") || r.exit.Code != 1 {
		t.Errorf("stdout %q, stderr %q, exit %+v: want a MemoryError and status 1", r.stdout, r.stderr, r.exit)
	}
}

func TestProcessFileSizeLimit(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	spec := shSpec(t, sb, 8, `exec head -c 3000000 /dev/zero > "$LAB_WORK/big"`)
	spec.Limits = sandbox.Limits{FileSize: 1 << 20}
	r := run(t, sb.Starter(spec), "")
	if r.exit.Signal != "file size limit exceeded" {
		t.Errorf("exit = %+v, want the signal for the file size limit", r.exit)
	}
	if info, err := os.Stat(filepath.Join(spec.Work, "big")); err != nil || info.Size() > 1<<20 {
		t.Errorf("the file: %v, %v", info, err)
	}
}

func TestRunToEnd(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	r := sandbox.RunToEnd(context.Background(), sb.Starter(shSpec(t, sb, 9, `echo out; echo err >&2; exit 4`)), time.Minute, 1024)
	if r.StartErr != nil || r.TimedOut || r.Exit.Code != 4 {
		t.Errorf("RunToEnd = %+v", r)
	}
	if lines := strings.Split(strings.TrimSpace(r.Output), "\n"); len(lines) != 2 {
		t.Errorf("output = %q, want out and err", r.Output)
	}

	r = sandbox.RunToEnd(context.Background(), sb.Starter(shSpec(t, sb, 9, `head -c 5000 /dev/zero | tr '\0' x`)), time.Minute, 1000)
	want := strings.Repeat("x", 1000) + "\n[... 4000 more bytes of output cut: only the first 1000 bytes are kept ...]\n"
	if r.Output != want {
		t.Errorf("capped output = %q", r.Output)
	}
}

func TestRunToEndTimeLimit(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	spec := shSpec(t, sb, 10, `echo started; sleep 300 & sleep 301`)
	// The limit covers the start too (new namespaces take a moment on a
	// loaded machine), so it leaves room for it.
	r := sandbox.RunToEnd(context.Background(), sb.Starter(spec), 3*time.Second, 1024)
	if !r.TimedOut || r.Exit.Signal != "killed" || r.Output != "started\n" {
		t.Errorf("RunToEnd = %+v, want a timeout with the output so far", r)
	}
}

// A workspace's Go cache links the seed's files read-only, and its folders
// belong to the slot's user.
func TestWorkspaceSeedsTheGoCache(t *testing.T) {
	t.Parallel()
	seed := filepath.Join(testkit.OpenDir(t), "seed")
	for _, f := range []string{"ab/abcd-a", "ab/abcd-d", "README", "trim.txt"} {
		p := filepath.Join(seed, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	sb := processSandbox(t)
	work := filepath.Join(testkit.OpenDir(t), "work")
	if err := sb.Workspace(work, 11, seed); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sandbox.RemoveWorkspace(work) })
	cache := filepath.Join(work, ".cache", "go-build")
	for _, f := range []string{"ab/abcd-a", "ab/abcd-d"} {
		data, err := os.ReadFile(filepath.Join(cache, f))
		if err != nil || string(data) != f {
			t.Errorf("%s: %q, %v", f, data, err)
		}
	}
	for _, f := range []string{"README", "trim.txt"} {
		if _, err := os.Stat(filepath.Join(cache, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was copied into the workspace: %v", f, err)
		}
	}
	if os.Geteuid() == 0 {
		spec := sandbox.Spec{Dir: work, Path: "/bin/sh", Work: work, Slot: 11, Args: []string{"-c",
			`echo new > "$GOCACHE/ab/new" && echo made; echo x >> "$GOCACHE/ab/abcd-a" 2>/dev/null || echo refused`}}
		if r := run(t, sb.Starter(spec), ""); r.stdout != "made\nrefused\n" {
			t.Errorf("in the workspace's cache: %q (stderr %q), want made and refused", r.stdout, r.stderr)
		}
	}
}

// needEngine skips a test when no Docker engine answers (or fails it when
// MCPLAB_REQUIRE_DOCKER=1), and returns a container sandbox.
func needEngine(t *testing.T) *sandbox.Container {
	t.Helper()
	return containers.Sandbox(t)
}

func TestContainerConfinement(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	script := `id -u; id -g; ls /sys/class/net
touch /etc/x 2>/dev/null && echo root-writable || echo root-read-only
touch "$LAB_WORK/x" && echo work-writable
touch "$PWD/x" 2>/dev/null && echo submission-writable || echo submission-read-only
grep CapEff /proc/self/status
cat`
	r := run(t, c.Starter(shSpec(t, c, 0, script)), "hello\n")
	u := strconv.Itoa(sandbox.DefaultContainerUser)
	if os.Geteuid() != 0 {
		u = strconv.Itoa(os.Geteuid())
	}
	want := u + "\n" + u + "\nlo\nroot-read-only\nwork-writable\nsubmission-read-only\nCapEff:\t0000000000000000\nhello\n"
	if r.stdout != want {
		t.Errorf("stdout = %q\nwant     %q\n(stderr %q)", r.stdout, want, r.stderr)
	}
	if !r.exit.OK() {
		t.Errorf("exit = %+v", r.exit)
	}
}

func TestContainerOutOfMemory(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	spec := shSpec(t, c, 1, `exec python3 -c 'x = bytearray(400 << 20); x[::4096] = b"1" * len(x[::4096]); print("survived")'`)
	spec.Limits = sandbox.Limits{Memory: 64 << 20}
	r := run(t, c.Starter(spec), "")
	if !strings.Contains(r.exit.Reason, "memory") || r.stdout != "" {
		t.Errorf("exit = %+v, stdout %q: want killed for memory", r.exit, r.stdout)
	}
}

func TestContainerProcessLimit(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	spec := shSpec(t, c, 2, forkBomb)
	spec.Limits = sandbox.Limits{Procs: 30}
	r := run(t, c.Starter(spec), "")
	var made, failed int
	if _, err := fmt.Sscan(r.stdout, &made, &failed); err != nil || made >= 30 || made+failed != 300 {
		t.Errorf("forks made and failed: %q (stderr %q), want fewer than 30 made", r.stdout, r.stderr)
	}
}

func TestContainerExitAndKill(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	if r := run(t, c.Starter(shSpec(t, c, 3, `exit 5`)), ""); r.exit.Code != 5 {
		t.Errorf("exit = %+v, want status 5", r.exit)
	}
	p, err := c.Starter(shSpec(t, c, 3, `echo up; sleep 300`)).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if _, err := io.ReadFull(p.Stdout(), buf); err != nil || string(buf) != "up\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	p.Kill()
	if exit := p.Wait(); exit.Signal != "killed" {
		t.Errorf("exit after Kill = %+v, want signal killed", exit)
	}
}

func TestContainerCannotStart(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	spec := shSpec(t, c, 4, "")
	spec.Path = filepath.Join(spec.Dir, "no-such-run")
	// The container's init starts, then cannot run the program: it says so
	// and exits with status 127, as a shell would.
	p, err := c.Starter(spec).Start(context.Background())
	if err != nil {
		return
	}
	errOut, _ := io.ReadAll(p.Stderr())
	if exit := p.Wait(); exit.Code != 127 || !strings.Contains(string(errOut), "no-such-run") {
		t.Errorf("exit = %+v, stderr %q: want status 127 naming the program", exit, errOut)
	}
}

// floodThenKill reads a megabyte of a flood on stdout, stops reading (as
// the grader does at its output cap) and kills the program, which must end
// all the same.
func floodThenKill(t *testing.T, sb sandbox.Sandbox, slot int) {
	t.Helper()
	p, err := sb.Starter(shSpec(t, sb, slot, `echo ready >&2; yes junk; echo never >&2`)).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, p.Stderr()) }()
	if _, err := io.CopyN(io.Discard, p.Stdout(), 1<<20); err != nil {
		t.Fatalf("reading the flood: %v", err)
	}
	p.Kill()
	if exit := p.Wait(); exit.Signal != "killed" {
		t.Errorf("exit = %+v, want signal killed", exit)
	}
}

func TestProcessFloodThenKill(t *testing.T) {
	t.Parallel()
	floodThenKill(t, processSandbox(t), 12)
}

func TestContainerFloodThenKill(t *testing.T) {
	t.Parallel()
	floodThenKill(t, needEngine(t), 5)
}

func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return len(entries)
}

// The sandbox gives back every file it opened for a program once the
// program has ended and its output was released. Not parallel: it counts
// the test process's open files.
func TestProcessReleasesFiles(t *testing.T) {
	sb := processSandbox(t)
	specs := []sandbox.Spec{shSpec(t, sb, 0, "echo hi"), shSpec(t, sb, 1, "exit 2"), shSpec(t, sb, 2, "sleep 300")}
	before := openFiles(t)
	for i, spec := range specs {
		p, err := sb.Starter(spec).Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(io.Discard, p.Stdout()) }()
		go func() { _, _ = io.Copy(io.Discard, p.Stderr()) }()
		if i == 2 {
			p.Kill()
		}
		p.Wait()
		p.(interface{ CloseOutput() }).CloseOutput()
	}
	// Fewer is fine: clean-up left over from earlier tests may close files
	// while this one runs. More would be a leak.
	if after := openFiles(t); after > before {
		t.Errorf("%d files open before, %d after three programs", before, after)
	}
}

// The backlog of a program's stdin is what it has not read: all of it, for
// a program that never reads.
func TestProcessStdinBacklog(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	p, err := sb.Starter(shSpec(t, sb, 13, "exec sleep 300")).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); p.Wait() }()
	if _, err := io.WriteString(p.Stdin(), "12345"); err != nil {
		t.Fatal(err)
	}
	b, ok := p.(proc.StdinBacklogger)
	if !ok {
		t.Fatal("the process sandbox's processes do not report their stdin backlog")
	}
	if n, err := b.StdinBacklog(); n != 5 || err != nil {
		t.Errorf("StdinBacklog() = %d, %v; want 5", n, err)
	}
}

// The launcher takes the program's limits on for the moment it starts the
// program, so it never sets them below what it needs itself; and it gives
// them back (as root), so it still cleans up after the program.
func TestProcessTinyLimits(t *testing.T) {
	t.Parallel()
	sb := processSandbox(t)
	// The pids the program prints are the host's only outside a PID
	// namespace; TestProcessNamespaces covers what is left in one.
	sb.NoNamespaces = true
	spec := shSpec(t, sb, 14, `ulimit -d; ulimit -n; sleep 300 & echo $!; setsid sleep 301 & echo $!; exit 0`)
	spec.Limits = sandbox.Limits{Memory: 4 << 20, Files: 16}
	r := run(t, sb.Starter(spec), "")
	if !r.exit.OK() {
		t.Fatalf("exit %+v, stderr %q", r.exit, r.stderr)
	}
	lines := strings.SplitN(r.stdout, "\n", 3)
	if len(lines) < 3 || lines[0] != strconv.Itoa(sandbox.MinMemory>>10) || lines[1] != strconv.Itoa(sandbox.MinFiles) {
		t.Fatalf("stdout %q: want the data limit %d KiB and %d files", r.stdout, sandbox.MinMemory>>10, sandbox.MinFiles)
	}
	if left := alive(pidsIn(t, lines[2])); len(left) > 0 {
		t.Errorf("processes %v still run after the program ended", left)
	}
}

// As root, the program runs in namespaces of its own: it sees only its own
// processes (never the grader's command line), only loopback, an empty
// private /tmp (but for the folders it needs) and /dev/shm, and cannot read
// the launcher's binary.
func TestProcessNamespaces(t *testing.T) {
	needRoot(t)
	t.Parallel()
	port, conns := testkit.CountConnections(t)
	sb := processSandbox(t)
	spec := shSpec(t, sb, 12, fmt.Sprintf(`
echo "procs $(ls /proc | grep -c '^[0-9]')"
echo "ifaces $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
echo "tmp $(ls -A /tmp | wc -l) shm $(ls -A /dev/shm | wc -l)"
echo "launcher $(head -c 4 %q 2>/dev/null | wc -c)"
(exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && echo "network reached" || echo "network refused"
echo x > /dev/shm/left && echo x > /tmp/left && echo wrote
setsid sleep 300 & sleep 301 &`, launcher, port))
	spec.Path = "/bin/bash"
	r := run(t, sb.Starter(spec), "")
	if !sb.Namespaces() {
		t.Fatalf("the sandbox gave up its namespaces; stdout %q, stderr %q", r.stdout, r.stderr)
	}
	// The launcher, bash, and the few processes of a command substitution.
	var procs int
	if _, err := fmt.Sscanf(r.stdout, "procs %d\n", &procs); err != nil || procs > 6 {
		t.Errorf("the program sees %d processes (%v), want its own few", procs, err)
	}
	_, rest, _ := strings.Cut(r.stdout, "\n")
	// /tmp holds the kept top folder of the workspace, and of the grader's
	// own folder when the checkout lies under /tmp.
	tmpKept := 1
	if wd, _ := os.Getwd(); strings.HasPrefix(wd, "/tmp/") {
		tmpKept++
	}
	want := fmt.Sprintf("ifaces lo \ntmp %d shm 0\nlauncher 0\nnetwork refused\nwrote\n", tmpKept)
	if rest != want {
		t.Errorf("in the namespaces:\n%s\nwant:\n%s\n(stderr %q)", rest, want, r.stderr)
	}
	if conns.Load() != 0 {
		t.Errorf("the program reached the grader's loopback %d time(s)", conns.Load())
	}
	for _, p := range []string{"/dev/shm/left", "/tmp/left"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s reached the machine's scratch folder", p)
		}
	}
	// What the program left running died with the namespace.
	uid, _, err := sb.User(12)
	if err != nil {
		t.Fatal(err)
	}
	if left := processesOf(uid); len(left) > 0 {
		t.Errorf("uid %d still runs %v", uid, left)
	}
}

// Without namespaces, the launcher removes what the slot's user left in
// the machine's scratch folders.
func TestProcessRemovesLeftovers(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	sb.NoNamespaces = true
	spec := shSpec(t, sb, 13, `mkdir -p /tmp/leftover-$$/deep && echo x > /tmp/leftover-$$/deep/f && echo x > /dev/shm/leftover-$$ && echo x > /var/tmp/leftover-$$ && echo $$`)
	r := run(t, sb.Starter(spec), "")
	pid := strings.TrimSpace(r.stdout)
	if pid == "" {
		t.Fatalf("the program did not run: stderr %q", r.stderr)
	}
	for _, d := range []string{"/tmp", "/dev/shm", "/var/tmp"} {
		if _, err := os.Lstat(filepath.Join(d, "leftover-"+pid)); err == nil {
			t.Errorf("%s/leftover-%s was left behind", d, pid)
		}
	}
}
