//go:build linux

package sandbox_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/testkit"
)

// testCap is the per-student scratch cap the tests set: small, so that
// filling it is quick.
const testCap = 8 << 20

// capJob is one job's workspace, capped at testCap, and the runs of it.
type capJob struct {
	sb   sandbox.Sandbox
	spec sandbox.Spec
}

// newCapJob makes a job in slot of sb, whose workspace is capped at
// testCap (sb's WorkspaceSize must be set to it).
func newCapJob(t *testing.T, sb sandbox.Sandbox, slot int) *capJob {
	t.Helper()
	return &capJob{sb: sb, spec: shSpec(t, sb, slot, "")}
}

// run runs script as one run of the job, to its end.
func (j *capJob) run(t *testing.T, script string) ran {
	t.Helper()
	spec := j.spec
	spec.Args = []string{"-c", script}
	return run(t, j.sb.Starter(spec), "")
}

// start starts script as one run of the job and returns it running.
func (j *capJob) start(t *testing.T, script string) (p interface {
	Stdin() io.WriteCloser
	Kill()
}, lines *bufio.Scanner, wait func() ran) {
	t.Helper()
	spec := j.spec
	spec.Args = []string{"-c", script}
	proc, err := j.sb.Starter(spec).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errOut := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(proc.Stderr())
		errOut <- string(b)
	}()
	sc := bufio.NewScanner(proc.Stdout())
	return proc, sc, func() ran {
		var rest strings.Builder
		for sc.Scan() {
			rest.WriteString(sc.Text() + "\n")
		}
		exit := proc.Wait()
		return ran{rest.String(), <-errOut, exit}
	}
}

// usage is what a run says of its files: their sizes ("size NAME BYTES"),
// the workspace's file system ("fs BLOCKS FREE BSIZE"), the exit status of
// each fill ("fill NAME STATUS"), and what it found ("flag NAME").
type usage struct {
	sizes       map[string]int64
	fills       map[string]int
	flags       map[string]bool
	total, free int64
}

// report prints, after a run's writes, the size of each file of files
// (a label, then the file's path as the shell should read it) and the
// workspace's file system, as usage reads them.
func report(files ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(files); i += 2 {
		fmt.Fprintf(&b, "echo \"size %s $(stat -c %%s %s 2>/dev/null || echo 0)\"\n", files[i], files[i+1])
	}
	b.WriteString(`stat -f -c 'fs %b %f %S' "$LAB_WORK"` + "\n")
	return b.String()
}

// fill writes up to 16 MiB of zeros to file (more than the cap), and says
// how that went.
func fill(name, file string) string {
	return fmt.Sprintf("head -c %d /dev/zero > %s; echo \"fill %s $?\"\n", 16<<20, file, name)
}

func parseUsage(t *testing.T, r ran) usage {
	t.Helper()
	u := usage{sizes: map[string]int64{}, fills: map[string]int{}, flags: map[string]bool{}}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[0] == "size":
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			u.sizes[f[1]] = n
		case len(f) == 2 && f[0] == "flag":
			u.flags[f[1]] = true
		case len(f) == 3 && f[0] == "fill":
			n, err := strconv.Atoi(f[2])
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			u.fills[f[1]] = n
		case len(f) == 4 && f[0] == "fs":
			var v [3]int64
			for i := range v {
				n, err := strconv.ParseInt(f[i+1], 10, 64)
				if err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				v[i] = n
			}
			u.total, u.free = v[0]*v[2], v[1]*v[2]
		}
	}
	if u.total == 0 {
		t.Fatalf("the run reported no file system: stdout %q, stderr %q, exit %+v", r.stdout, r.stderr, r.exit)
	}
	return u
}

// sum is the bytes of the files the run reported.
func (u usage) sum() int64 {
	var s int64
	for _, n := range u.sizes {
		s += n
	}
	return s
}

// wantFull checks that the run's fills of names failed for want of room
// (the last write said "no space left on device"), that the files it
// holds sum to at most the cap and to within a page per file of it, and
// that the workspace is full.
func wantFull(t *testing.T, what string, r ran, u usage, names ...string) {
	t.Helper()
	for _, n := range names {
		if u.fills[n] == 0 {
			t.Errorf("%s: filling %s succeeded (stdout %q)", what, n, r.stdout)
		}
	}
	if !strings.Contains(strings.ToLower(r.stderr), "no space left on device") {
		t.Errorf("%s: the writes failed, but not for want of room: stderr %q", what, r.stderr)
	}
	if u.total != testCap {
		t.Errorf("%s: the workspace's file system holds %d bytes, want the cap, %d", what, u.total, testCap)
	}
	if s := u.sum(); s > testCap || s < testCap-int64(len(u.sizes))*4096 {
		t.Errorf("%s: the files hold %d bytes together (%v); want the cap, %d, to within a page a file", what, s, u.sizes, testCap)
	}
	if u.free != 0 {
		t.Errorf("%s: %d bytes are still free in the workspace", what, u.free)
	}
}

// entries lists dir's entries, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// scratchCap is the test of both sandboxes: one job (slot a) writes, run
// after run, into LAB_WORK and its scratch folders (tmps: /tmp, /dev/shm,
// and /var/tmp where it is writable); what it holds at once never passes
// the cap, what a run left in its scratch folders is gone at the next,
// and the job's workspace counts as full (sandbox.WorkspaceFull) once a
// run filled it, even through /tmp alone. Another job (slot b) is not
// touched by the first job's full cap, and sees none of its files.
func scratchCap(t *testing.T, sb sandbox.Sandbox, a, b int, tmps []string) {
	job := newCapJob(t, sb, a)
	work := job.spec.Work
	before := entries(t, work)

	// Run 1: 3 MiB kept in LAB_WORK, then /tmp filled: the two together
	// are the cap.
	r := job.run(t, `head -c 3145728 /dev/zero > "$LAB_WORK/keep"; echo "fill keep $?"
test "$(stat -c %d /tmp)" = "$(stat -c %d "$LAB_WORK")" && echo "flag same-fs"
`+fill("tmp", "/tmp/a")+report("keep", `"$LAB_WORK/keep"`, "a", "/tmp/a"))
	u := parseUsage(t, r)
	if u.fills["keep"] != 0 || u.sizes["keep"] != 3<<20 {
		t.Fatalf("run 1 could not keep 3 MiB in LAB_WORK: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if !u.flags["same-fs"] {
		t.Errorf("run 1: /tmp is not on the workspace's file system (stdout %q)", r.stdout)
	}
	wantFull(t, "run 1 (LAB_WORK and /tmp)", r, u, "tmp")
	if got, want := entries(t, work), slices.Sorted(slices.Values(append(before, "keep"))); !slices.Equal(got, want) {
		t.Errorf("after run 1 the workspace holds %q, want %q: its scratch folders outlived it", got, want)
	}
	if !sandbox.WorkspaceFull(work) {
		t.Errorf("a run filled the workspace through /tmp, but WorkspaceFull does not say so")
	}

	// Run 2: run 1's /tmp is gone, and so is the room it took; each of
	// the other scratch folders fills up to the same cap.
	for i, d := range tmps[1:] {
		r := job.run(t, `test -e /tmp/a && echo "flag tmp-survived"
`+fill("scratch", d+"/b")+report("keep", `"$LAB_WORK/keep"`, "b", d+"/b"))
		u := parseUsage(t, r)
		if u.flags["tmp-survived"] {
			t.Errorf("run %d: run 1's /tmp/a is still there", i+2)
		}
		wantFull(t, fmt.Sprintf("run %d (LAB_WORK and %s)", i+2, d), r, u, "scratch")
	}

	// All at once: 1 MiB in each scratch folder, then LAB_WORK filled.
	var script strings.Builder
	files := []string{"keep", `"$LAB_WORK/keep"`, "more", `"$LAB_WORK/more"`}
	for _, d := range tmps {
		fmt.Fprintf(&script, "head -c 1048576 /dev/zero > %s/c; echo \"fill %s $?\"\n", d, d)
		files = append(files, d, d+"/c")
	}
	script.WriteString(fill("work", `"$LAB_WORK/more"`) + report(files...))
	r = job.run(t, script.String())
	u = parseUsage(t, r)
	for _, d := range tmps {
		if u.fills[d] != 0 {
			t.Errorf("writing 1 MiB in %s failed: stderr %q", d, r.stderr)
		}
	}
	wantFull(t, "LAB_WORK and every scratch folder", r, u, "work")
	if err := os.Remove(filepath.Join(work, "more")); err != nil {
		t.Fatal(err)
	}

	// Another job, while this one holds its cap full in a run: its own
	// scratch has all its room, and it sees nothing of the first job's.
	p, lines, wait := job.start(t, fill("tmp", "/tmp/full")+"echo filled\nread line\nexit 0\n")
	defer p.Kill()
	for lines.Scan() && lines.Text() != "filled" {
	}
	other := newCapJob(t, sb, b)
	r = other.run(t, fmt.Sprintf(`test -e /tmp/full && echo "flag seen"
ls %q >/dev/null 2>&1 && echo "flag listed"
head -c 4194304 /dev/zero > /tmp/d; echo "fill tmp $?"
head -c 2097152 /dev/zero > "$LAB_WORK/e"; echo "fill work $?"
`, work)+report("d", "/tmp/d", "e", `"$LAB_WORK/e"`))
	u = parseUsage(t, r)
	for _, k := range []string{"seen", "listed"} {
		if u.flags[k] {
			t.Errorf("the other job %s the first job's files", k)
		}
	}
	if u.fills["tmp"] != 0 || u.fills["work"] != 0 || u.sum() != 6<<20 {
		t.Errorf("the other job could not write 6 MiB under its own cap: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if sandbox.WorkspaceFull(other.spec.Work) {
		t.Errorf("the other job's workspace counts as full")
	}
	if err := p.Stdin().Close(); err != nil {
		t.Fatal(err)
	}
	if r := wait(); !r.exit.OK() {
		t.Errorf("the first job's last run: exit %+v, stderr %q", r.exit, r.stderr)
	}
	if got, want := entries(t, work), slices.Sorted(slices.Values(append(before, "keep"))); !slices.Equal(got, want) {
		t.Errorf("after the last run the workspace holds %q, want %q", got, want)
	}
}

// In the process sandbox (as root, in namespaces), LAB_WORK and each run's
// /tmp, /var/tmp and /dev/shm share the job's cap.
func TestProcessScratchCap(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	sb.WorkspaceSize = testCap
	if r := run(t, sb.Starter(shSpec(t, sb, 42, "true")), ""); !sb.Namespaces() {
		t.Skipf("no namespaces here, so the machine's /tmp is shared: stderr %q", r.stderr)
	}
	scratchCap(t, sb, 42, 43, []string{"/tmp", "/var/tmp", "/dev/shm"})
}

// In the container sandbox (as root, when the workspace is a tmpfs),
// LAB_WORK and each run's /tmp and /dev/shm share the job's cap.
func TestContainerScratchCap(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root caps a workspace (a tmpfs), and without one the container keeps a tmpfs /tmp of its own")
	}
	c.WorkspaceSize = testCap
	scratchCap(t, c, 8, 9, []string{"/tmp", "/dev/shm"})
}

// A Work folder the sandbox did not make (not a file system of its own)
// takes nothing of the job's cap: the program's /tmp is a tmpfs of its
// own, of DefaultScratchSize, as before there was a cap.
func TestProcessScratchOutsideAWorkspace(t *testing.T) {
	needRoot(t)
	t.Parallel()
	sb := processSandbox(t)
	spec := shSpec(t, sb, 44, `stat -f -c '%b %S' /tmp; test "$(stat -c %d /tmp)" = "$(stat -c %d "$LAB_WORK")" && echo same || echo apart`)
	spec.Work = testkit.OpenDir(t)
	uid, gid, err := sb.User(44)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(spec.Work, uid, gid); err != nil {
		t.Fatal(err)
	}
	r := run(t, sb.Starter(spec), "")
	if !sb.Namespaces() {
		t.Skipf("no namespaces here: stderr %q", r.stderr)
	}
	var blocks, bsize int64
	var where string
	if _, err := fmt.Sscan(r.stdout, &blocks, &bsize, &where); err != nil || blocks*bsize != sandbox.DefaultScratchSize || where != "apart" {
		t.Errorf("stdout %q (%v), stderr %q: want a /tmp of %d bytes apart from LAB_WORK", r.stdout, err, r.stderr, sandbox.DefaultScratchSize)
	}
}
