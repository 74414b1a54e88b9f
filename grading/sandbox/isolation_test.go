//go:build unix

package sandbox_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/testkit"
)

// sysvScript makes, as "write KEY", a System V shared memory segment
// holding a message, a message queue and a semaphore set under KEY, and a
// file in /run/lock, and leaves them all; as "read KEY" it prints the
// message of the segment under KEY, or "none".
const sysvScript = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
IPC_CREAT = 0o1000
key = int(sys.argv[2])
if sys.argv[1] == "write":
    shm = libc.shmget(key, 1 << 20, IPC_CREAT | 0o666)
    addr = libc.shmat(shm, None, 0)
    ctypes.memmove(addr, b"secret of the writer\0", 21)
    q = libc.msgget(key, IPC_CREAT | 0o666)
    s = libc.semget(key, 1, IPC_CREAT | 0o666)
    wrote = "no lock"
    try:
        with open("/run/lock/mcplab-test-%d" % key, "w") as f:
            f.write("x")
        wrote = "lock"
    except OSError:
        pass
    print("made", shm >= 0, q >= 0, s >= 0, wrote)
else:
    shm = libc.shmget(key, 0, 0)
    if shm < 0:
        print("none")
    else:
        print("found", ctypes.string_at(libc.shmat(shm, None, 0)).decode())
`

// writeScript puts sysvScript in spec's submission folder.
func writeScript(t *testing.T, spec sandbox.Spec) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(spec.Dir, "sysv.py"), []byte(sysvScript), 0o644); err != nil {
		t.Fatal(err)
	}
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 (for System V IPC through ctypes)")
	}
}

// runLockOf lists the files of uid in /run/lock.
func runLockOf(uid int) []string { return ownedIn("/run/lock", uid) }

// ownedIn lists the entries of dir that belong to uid.
func ownedIn(dir string, uid int) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		if owner(info) == uid {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func owner(info os.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// Two jobs of two slots, one after the other: the second sees nothing of
// the first's System V objects, and nothing of the first's is left on the
// machine, whether the launcher runs in namespaces or not.
func TestProcessIPCIsolation(t *testing.T) {
	needRoot(t)
	needPython(t)
	t.Parallel()
	for i, noNS := range []bool{false, true} {
		t.Run(fmt.Sprintf("namespaces=%v", !noNS), func(t *testing.T) {
			sb := processSandbox(t)
			sb.NoNamespaces = noNS
			key := 0x6d630000 + os.Getpid()%0x1000*4 + i
			slotW, slotR := 20+2*i, 21+2*i
			w := shSpec(t, sb, slotW, fmt.Sprintf(`exec python3 sysv.py write %d`, key))
			writeScript(t, w)
			r := run(t, sb.Starter(w), "")
			if r.stdout != "made True True True lock\n" || !r.exit.OK() {
				t.Fatalf("the writer: stdout %q, stderr %q, exit %+v", r.stdout, r.stderr, r.exit)
			}
			uid, _, err := sb.User(slotW)
			if err != nil {
				t.Fatal(err)
			}
			left, err := sandbox.SysVObjectsOf(uid)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) > 0 {
				t.Errorf("uid %d's System V objects outlived its job: %+v", uid, left)
			}
			if files := runLockOf(uid); len(files) > 0 {
				t.Errorf("uid %d's files in /run/lock outlived its job: %v", uid, files)
			}
			rd := shSpec(t, sb, slotR, fmt.Sprintf(`exec python3 sysv.py read %d`, key))
			writeScript(t, rd)
			if r := run(t, sb.Starter(rd), ""); r.stdout != "none\n" {
				t.Errorf("the reader, in another slot: stdout %q (stderr %q), want none", r.stdout, r.stderr)
			}
		})
	}
}

// Two jobs at the same time: the reader, started once the writer's
// segment exists, does not see it.
func TestProcessIPCIsolationAtOnce(t *testing.T) {
	needRoot(t)
	needPython(t)
	t.Parallel()
	sb := processSandbox(t)
	ipcAtOnce(t, sb, 0x6d640000+os.Getpid()%0x1000, 30, 31, func(line string) bool { return line == "made True True True lock\n" }, "")
}

// ipcAtOnce starts, in slot wslot of sb, a writer that makes the System V
// segment key and then waits, and once made says so of its first line,
// runs a reader of key in slot rslot, which must see none; where says
// where that reader ran, for the failure.
func ipcAtOnce(t *testing.T, sb sandbox.Sandbox, key, wslot, rslot int, made func(line string) bool, where string) {
	t.Helper()
	w := shSpec(t, sb, wslot, fmt.Sprintf(`python3 sysv.py write %d && read line`, key))
	writeScript(t, w)
	p, err := sb.Starter(w).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); p.Wait() }()
	go func() { _, _ = io.Copy(io.Discard, p.Stderr()) }()
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if !made(line) {
		t.Fatalf("the writer said %q (%v)", line, err)
	}
	rd := shSpec(t, sb, rslot, fmt.Sprintf(`exec python3 sysv.py read %d`, key))
	writeScript(t, rd)
	if r := run(t, sb.Starter(rd), ""); r.stdout != "none\n" {
		t.Errorf("the reader, %swhile the writer runs: stdout %q (stderr %q), want none", where, r.stdout, r.stderr)
	}
}

// hogs starts six processes that take 450 MB each and hold it until stdin
// ends; each says "held N" once it has it, and its subshell "ended N
// STATUS" when it ends.
const hogs = `exec 3<&0
for i in 1 2 3 4 5 6; do
  (python3 -c 'import os, sys
x = bytearray(b"\x01") * (450 << 20)
print("held", sys.argv[1], flush=True)
os.read(3, 1)' $i; echo "ended $i $?") &
done
wait`

// Six processes of 450 MB in one job hold, together, no more than the
// job's limit (512 MiB): at most one of them holds its memory once all
// have tried.
func TestProcessMemoryTogether(t *testing.T) {
	needRoot(t)
	needPython(t)
	if ok, err := sandbox.MemoryCgroups(); !ok {
		t.Skipf("no memory cgroup here (%v): the process sandbox caps each process on its own", err)
	}
	t.Parallel()
	sb := processSandbox(t)
	p, err := sb.Starter(shSpec(t, sb, 32, hogs)).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A generous bound for a loaded machine: past it the test fails, it
	// never decides anything.
	timer := time.AfterFunc(3*time.Minute, p.Kill)
	defer timer.Stop()
	go func() { _, _ = io.Copy(io.Discard, p.Stderr()) }()
	held, ended := map[string]bool{}, map[string]string{}
	sc := bufio.NewScanner(p.Stdout())
	for len(held)+len(ended)-overlap(held, ended) < 6 && sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "held":
			held[f[1]] = true
		case len(f) == 3 && f[0] == "ended":
			ended[f[1]] = f[2]
		default:
			t.Errorf("unexpected line %q", sc.Text())
		}
	}
	var holding []string
	for n := range held {
		if _, gone := ended[n]; !gone {
			holding = append(holding, n)
		}
	}
	slices.Sort(holding)
	if len(holding) > 1 {
		t.Errorf("hogs %v hold 450 MB each at once; the job's limit is 512 MiB for its processes together", holding)
	}
	killed := 0
	for _, status := range ended {
		if status == "137" {
			killed++
		}
	}
	t.Logf("six hogs of 450 MB in one job: %d held at the end (%v), %d killed by the kernel", len(holding), holding, killed)
	if killed < 5 {
		t.Errorf("%d hogs were killed (ended %v), want at least 5", killed, ended)
	}
	_ = p.Stdin().Close()
	if exit := p.Wait(); !exit.OK() {
		t.Errorf("the job's shell: exit %+v, want status 0 (only its hogs were killed)", exit)
	}
}

func overlap(a map[string]bool, b map[string]string) int {
	n := 0
	for k := range a {
		if _, ok := b[k]; ok {
			n++
		}
	}
	return n
}

// A program the kernel kills for the job's memory limit is told killed for
// memory, as in the container sandbox.
func TestProcessOutOfMemory(t *testing.T) {
	needRoot(t)
	needPython(t)
	if ok, err := sandbox.MemoryCgroups(); !ok {
		t.Skipf("no memory cgroup here (%v)", err)
	}
	t.Parallel()
	sb := processSandbox(t)
	spec := shSpec(t, sb, 33, `exec python3 -c 'x = bytearray(b"\x01") * (400 << 20); print("survived")'`)
	spec.Limits = sandbox.Limits{Memory: 128 << 20}
	r := run(t, sb.Starter(spec), "")
	want := "killed for using more than 128 MiB of memory (the process sandbox's limit for the job's processes together)"
	if r.exit.Reason != want || r.stdout != "" {
		t.Errorf("exit %+v, stdout %q: want %q", r.exit, r.stdout, want)
	}
	// Killed by the grader, it is not told so.
	spec = shSpec(t, sb, 33, `echo up; exec sleep 300`)
	p, err := sb.Starter(spec).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(p.Stdout()).ReadString('\n')
	if line != "up\n" {
		t.Fatalf("read %q", line)
	}
	p.Kill()
	if exit := p.Wait(); exit.Signal != "killed" || exit.Reason != "" {
		t.Errorf("exit after Kill = %+v, want signal killed and no reason", exit)
	}
}

// The job's cgroup is gone once the job is: the grader's memory cgroup
// holds none of the sandbox's.
func TestProcessRemovesItsCgroups(t *testing.T) {
	needRoot(t)
	if ok, err := sandbox.MemoryCgroups(); !ok {
		t.Skipf("no memory cgroup here (%v)", err)
	}
	t.Parallel()
	sb := processSandbox(t)
	spec := shSpec(t, sb, 34, `cat /proc/self/cgroup; sleep 300 & setsid sleep 301 &`)
	r := run(t, sb.Starter(spec), "")
	prefix := fmt.Sprintf("/mcplab-%d-", os.Getpid())
	var dir string
	for _, line := range strings.Split(r.stdout, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) == 3 && strings.Contains(parts[2], prefix) && (strings.Contains(parts[1], "memory") || parts[0] == "0") {
			dir = parts[2]
		}
	}
	if dir == "" {
		t.Fatalf("the program was in no job cgroup: %q (stderr %q)", r.stdout, r.stderr)
	}
	for _, root := range []string{"/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		if _, err := os.Stat(filepath.Join(root, dir)); err == nil {
			t.Errorf("the job's cgroup %s%s is left", root, dir)
		}
	}
}

// The grader's working folder may be /tmp itself (and a kept path may be
// /tmp): the program still sees a /tmp of its own, with exactly the
// folders it needs (a rig folder only its user may enter among them), not
// the host's files, not another job's folder beside its own.
func TestProcessTmpKeepsOnlyWhatTheJobNeeds(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	marker, err := os.CreateTemp("/tmp", "mcplab-host-file-")
	if err != nil {
		t.Fatal(err)
	}
	marker.Close()
	t.Cleanup(func() { os.Remove(marker.Name()) })
	other := testkit.OpenDir(t) // another job's folder, beside this job's
	if err := os.WriteFile(filepath.Join(other, "theirs"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	uid, gid, err := sb.User(35)
	if err != nil {
		t.Fatal(err)
	}
	rig := filepath.Join(testkit.OpenDir(t), "lab-rig-1")
	if err := os.Mkdir(rig, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(rig, uid, gid); err != nil {
		t.Fatal(err)
	}
	spec := shSpec(t, sb, 35, fmt.Sprintf(`
ls -A /tmp
test -e %q && echo "host file seen" || echo "no host file"
test -e %q && echo "other job seen" || echo "no other job"
echo x > %q/sock && echo "rig writable"`, marker.Name(), other, rig))
	spec.Root = "/tmp"
	spec.Share = []string{"/tmp", "/tmp/", rig}
	r := run(t, sb.Starter(spec), "")
	if !sb.Namespaces() {
		t.Fatalf("the sandbox gave up its namespaces; stdout %q, stderr %q", r.stdout, r.stderr)
	}
	tops := map[string]bool{}
	for _, p := range []string{spec.Dir, spec.Work, rig} {
		if rel, ok := strings.CutPrefix(p, "/tmp/"); ok {
			tops[strings.Split(rel, "/")[0]] = true
		}
	}
	if wd, _ := os.Getwd(); strings.HasPrefix(wd, "/tmp/") {
		tops[strings.Split(strings.TrimPrefix(wd, "/tmp/"), "/")[0]] = true
	}
	var want []string
	for top := range tops {
		want = append(want, top)
	}
	slices.Sort(want)
	wantOut := strings.Join(want, "\n") + "\nno host file\nno other job\nrig writable\n"
	if r.stdout != wantOut {
		t.Errorf("in the job's /tmp:\n%s\nwant:\n%s(stderr %q)", r.stdout, wantOut, r.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(rig, "sock")); err != nil || string(data) != "x\n" {
		t.Errorf("the rig folder was not the host's: %q, %v", data, err)
	}
}

// The container sandbox gives each job a System V IPC of its own too.
func TestContainerIPCIsolation(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	ipcAtOnce(t, c, 0x6d650000+os.Getpid()%0x1000, 6, 7, func(line string) bool { return strings.HasPrefix(line, "made True True True ") }, "in another container ")
}
