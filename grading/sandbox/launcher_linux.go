//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcplab/mcplab/lab/proc"
)

// The launcher's two extra file descriptors: it reports on status (one
// "ok PID" line once the program runs, or "error: ..." when it cannot
// start, then "exit code N" or "exit signal NAME" at the end), and it reads
// lifeline, whose end (the grader closed it, or the grader died) means
// "stop the program now".
const (
	statusFD   = 3
	lifelineFD = 4
)

// Main is the sandbox launcher: the process sandbox runs every program as
//
//	LAUNCHER -uid U -gid G -nproc N -data BYTES -fsize BYTES -nofile N -dir DIR [-cgroup CG] [-ns [-scratchdir RUN] -keep PATH...] -- PROGRAM ARGS...
//
// With -cgroup the program starts in the memory cgroup folder CG (the
// grader made it and removes it); when the kernel killed a process there
// for memory and the program died of SIGKILL, the launcher says
// "oom-kills N" on status before the exit line.
//
// With -ns the launcher was started as the first process of new PID, mount
// and network namespaces, and sets them up first (see enterNamespaces):
// as their first process it also takes everything left in them down with
// it when it exits. With -scratchdir, the program's /tmp, /var/tmp,
// /dev/shm and /run/lock are the folders of RUN, a folder the grader made
// in the job's workspace for this run (see newRunScratch) and removes
// after it; without, each is a tmpfs of its own (see DefaultScratchSize). Without -ns, as root, it removes what user U left in
// /tmp, /var/tmp and /dev/shm once the program's processes are gone.
//
// where LAUNCHER re-executes the lab binary (lab grade-class sandbox-exec,
// or a test binary that calls Main). The launcher makes itself the
// subreaper of everything the program starts, sets the resource limits,
// starts the program in a process group of its own (as user U and group G
// when they are set, which needs root), and waits. When the program ends,
// or the grader closes the lifeline, it kills every process the program
// left behind (its process group, every process of user U, and every
// orphan that was handed to the launcher), reaps them all, reports how the
// program ended and exits. Args are the arguments after the launcher's own
// name; the result is the launcher's exit status.
func Main(args []string) int {
	var st syscall.Stat_t
	if syscall.Fstat(statusFD, &st) != nil || syscall.Fstat(lifelineFD, &st) != nil {
		fmt.Fprintln(os.Stderr, "sandbox-exec: only the grader runs this (it needs file descriptors 3 and 4)")
		return 125
	}
	syscall.CloseOnExec(statusFD)
	syscall.CloseOnExec(lifelineFD)
	status := os.NewFile(statusFD, "status")
	life := os.NewFile(lifelineFD, "lifeline")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(status, "error: "+format+"\n", a...)
		return 125
	}

	o, err := parseLaunch(args)
	if err != nil {
		return fail("sandbox-exec: %v", err)
	}
	if o.ns {
		if err := enterNamespaces(append(o.keep, o.dir), o.scratchDir, o.scratch, o.uid, o.gid); err != nil {
			return fail("%s%v", nsFailure, err)
		}
	}
	if err := setSubreaper(); err != nil {
		return fail("sandbox-exec: %v", err)
	}
	restore, err := o.takeLimits()
	if err != nil {
		return fail("sandbox-exec: %v", err)
	}
	// SIGTERM to the launcher (the grader's Terminate) is the program's:
	// caught before the program starts, so none is lost, and passed on.
	terms := make(chan os.Signal, 1)
	signal.Notify(terms, syscall.SIGTERM)
	cmd, err := o.start(status, restore)
	if err != nil {
		return fail("%v", err)
	}
	child := cmd.Process.Pid
	go func() {
		for range terms {
			_ = syscall.Kill(child, syscall.SIGTERM)
		}
	}()
	fmt.Fprintf(status, "ok %d\n", child)

	// One goroutine reaps every child, the program and the orphans alike;
	// cmd.Wait is never called, so no exit status is taken from it.
	exited := make(chan syscall.WaitStatus, 1)
	reaped := make(chan struct{}, 1)
	allGone := make(chan struct{})
	go reapAll(child, exited, reaped, allGone)

	stop := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, life)
		close(stop)
	}()

	var ws syscall.WaitStatus
	stopped := false
	select {
	case ws = <-exited:
	case <-stop:
		stopped = true
	}
	if o.cgroup != "" && !stopped && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		// Killed, and not by the grader: by the kernel, for memory?
		if n := oomKills(o.cgroup); n > 0 {
			fmt.Fprintf(status, "oom-kills %d\n", n)
		}
	}
	killAllLeft(child, o.uid, reaped, allGone, status)
	if !o.ns && o.uid > 0 {
		// No private scratch folders to vanish with the namespace: remove
		// what the slot's user left in the machine's.
		removeOwned(o.uid)
	}
	if stopped {
		select {
		case ws = <-exited:
		default:
			fmt.Fprintln(status, "exit signal killed")
			return 0
		}
	}
	switch {
	case ws.Signaled():
		fmt.Fprintf(status, "exit signal %s\n", ws.Signal())
	default:
		fmt.Fprintf(status, "exit code %d\n", ws.ExitStatus())
	}
	return 0
}

// launchArgs is what the launcher's flags ask for, and the program to run.
type launchArgs struct {
	uid, gid, nproc, nofile int
	data, fsize, scratch    int64
	dir, cgroup, scratchDir string
	ns                      bool
	keep                    []string // with ns: paths under /tmp the program needs
	// files holds the program to file rules (Landlock): it writes only
	// writable, and neither reads nor writes private (see fileRules).
	files             bool
	writable, private []string
	argv              []string // the program and its arguments
}

// parseLaunch reads the launcher's flags and the program after them.
func parseLaunch(args []string) (*launchArgs, error) {
	fs := flag.NewFlagSet("sandbox-exec", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	uid := fs.Int("uid", -1, "user to run the program as (-1: keep)")
	gid := fs.Int("gid", -1, "group to run the program as (-1: keep)")
	nproc := fs.Int("nproc", 0, "RLIMIT_NPROC (0: unchanged)")
	data := fs.Int64("data", 0, "RLIMIT_DATA in bytes (0: unchanged)")
	fsize := fs.Int64("fsize", 0, "RLIMIT_FSIZE in bytes (0: unchanged)")
	nofile := fs.Int("nofile", 0, "RLIMIT_NOFILE (0: unchanged)")
	dir := fs.String("dir", "", "working directory of the program")
	ns := fs.Bool("ns", false, "the launcher runs in new PID, mount and network namespaces: set them up")
	scratch := fs.Int64("scratch", DefaultScratchSize, "with -ns and no -scratchdir: the size of the private /tmp, /var/tmp and /dev/shm, in bytes")
	scratchDir := fs.String(strings.TrimPrefix(scratchDirFlag, "-"), "", "with -ns: the run's folder in the workspace that holds its /tmp, /var/tmp, /dev/shm and /run/lock")
	cgroup := fs.String("cgroup", "", "the job's memory cgroup folder: the program starts in it")
	files := fs.Bool("files", false, "hold the program to file rules: write only -writable, reach nothing of -private (Landlock)")
	var writable, private []string
	fs.Func("writable", "with -files: a folder the program may write (repeatable)", func(v string) error {
		writable = append(writable, v)
		return nil
	})
	fs.Func("private", "with -files: a folder the program may neither read nor write (repeatable)", func(v string) error {
		private = append(private, v)
		return nil
	})
	var keep []string
	fs.Func("keep", "with -ns: a path under /tmp the program needs (repeatable)", func(v string) error {
		keep = append(keep, v)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return nil, errors.New("no program to run")
	}
	return &launchArgs{uid: *uid, gid: *gid, nproc: *nproc, nofile: *nofile, data: *data, fsize: *fsize, scratch: *scratch,
		dir: *dir, cgroup: *cgroup, scratchDir: *scratchDir, ns: *ns, keep: keep, argv: argv,
		files: *files, writable: writable, private: private}, nil
}

// takeLimits sets the resource limits on the launcher itself, for the
// program to inherit, and returns the function that gives them back (as
// root; without root it cannot raise a hard limit again, and keeps them).
func (o *launchArgs) takeLimits() (restore func(), err error) {
	// The launcher lives under the limits for a moment (see below), so
	// they never go below what it needs itself.
	if o.data > 0 {
		o.data = max(o.data, MinMemory)
	}
	if o.nofile > 0 {
		o.nofile = max(o.nofile, MinFiles)
	}
	limits := []struct {
		name     string
		resource int
		value    uint64
	}{
		{"core", syscall.RLIMIT_CORE, 0},
		{"nproc", rlimitNPROC, uint64(max(o.nproc, 0))},
		{"data", syscall.RLIMIT_DATA, uint64(max(o.data, 0))},
		{"fsize", syscall.RLIMIT_FSIZE, uint64(max(o.fsize, 0))},
		{"nofile", syscall.RLIMIT_NOFILE, uint64(max(o.nofile, 0))},
	}
	// The program inherits the launcher's limits, so the launcher takes
	// them on just before it starts the program. As root it gives them
	// back right after, so its own clean-up never runs short; without root
	// it cannot raise a hard limit again, and keeps them (it needs little).
	saved := map[int]syscall.Rlimit{}
	for _, l := range limits {
		if l.value == 0 && l.resource != syscall.RLIMIT_CORE {
			continue
		}
		var old syscall.Rlimit
		if err := syscall.Getrlimit(l.resource, &old); err == nil {
			saved[l.resource] = old
		}
		if err := setLimit(l.resource, l.value); err != nil {
			return nil, fmt.Errorf("setting RLIMIT_%s to %d: %w", strings.ToUpper(l.name), l.value, err)
		}
	}
	return func() {
		if os.Geteuid() != 0 {
			return
		}
		for resource, old := range saved {
			_ = syscall.Setrlimit(resource, &old)
		}
	}, nil
}

// start starts the program in a process group of its own, as the args'
// user and group, in its memory cgroup, and gives the launcher's limits
// back (restore) once it has. The error is what the launcher reports.
func (o *launchArgs) start(status io.Writer, restore func()) (*exec.Cmd, error) {
	argv := o.argv
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = o.dir
	cmd.Env = os.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	attr := &syscall.SysProcAttr{Setpgid: true}
	if o.uid >= 0 {
		g := o.gid
		if g < 0 {
			g = o.uid
		}
		attr.Credential = &syscall.Credential{Uid: uint32(o.uid), Gid: uint32(g), Groups: []uint32{}}
	}
	cmd.SysProcAttr = attr
	// The program starts in the job's memory cgroup, so that it and
	// everything it starts share one memory limit: the launcher joins the
	// cgroup for the moment it starts the program (which inherits it), then
	// goes back to the grader's.
	if o.cgroup != "" {
		if err := joinCgroup(o.cgroup); err != nil {
			restore()
			return nil, fmt.Errorf("sandbox-exec: %w", err)
		}
	}
	if o.files {
		// On this goroutine's thread, which starts the program: it
		// inherits the rules, and the thread keeps them (see apply).
		if err := (fileRules{Writable: o.writable, Private: o.private}).apply(); err != nil {
			restore()
			return nil, fmt.Errorf("sandbox-exec: holding the program to its files: %w", err)
		}
	}
	err := cmd.Start()
	restore()
	if o.cgroup != "" {
		if err := leaveCgroup(o.cgroup); err != nil {
			fmt.Fprintf(status, "note: %v\n", err)
		}
	}
	if err != nil {
		who := ""
		if o.uid >= 0 {
			who = fmt.Sprintf(" as uid %d (the submission folder and every folder above it must be readable by that user)", o.uid)
		}
		if why := proc.ExplainExec(resolve(o.dir, argv[0]), err); why != "" {
			return nil, fmt.Errorf("cannot start %s: %s", argv[0], why)
		}
		return nil, fmt.Errorf("cannot start %s%s: %v", argv[0], who, unwrapExec(err))
	}
	return cmd, nil
}

// killAllLeft kills whatever is left: the process group of child, every
// process of the slot's user uid, every orphan handed to the launcher.
// Again after each reaping, and every 50 ms, in case something forked
// while the first round was on its way, until allGone or cleanupWithin.
func killAllLeft(child, uid int, reaped <-chan struct{}, allGone <-chan struct{}, status io.Writer) {
	sweep := func() {
		_ = syscall.Kill(-child, syscall.SIGKILL)
		if uid > 0 {
			killUser(uid)
		}
		killChildren()
	}
	sweep()
	deadline := time.NewTimer(cleanupWithin)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-allGone:
			return
		case <-reaped:
			sweep()
		case <-tick.C:
			sweep()
		case <-deadline.C:
			fmt.Fprintf(status, "note: some processes did not die within %v of SIGKILL\n", cleanupWithin)
			return
		}
	}
}

// rlimitNPROC is RLIMIT_NPROC, which package syscall does not name.
const rlimitNPROC = 6

func setLimit(resource int, value uint64) error {
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(resource, &cur); err != nil {
		return err
	}
	lim := syscall.Rlimit{Cur: value, Max: value}
	if os.Geteuid() != 0 && value > cur.Max {
		// Only root may raise a hard limit; keep the lower one.
		lim = syscall.Rlimit{Cur: cur.Max, Max: cur.Max}
	}
	return syscall.Setrlimit(resource, &lim)
}

func setSubreaper() error {
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return fmt.Errorf("becoming the subreaper of the program: %w", e)
	}
	return nil
}

// reapAll waits for children until none is left. The program's exit status
// goes to exited; each reaping is signalled on reaped; allGone is closed
// when no child is left.
func reapAll(child int, exited chan<- syscall.WaitStatus, reaped chan<- struct{}, allGone chan<- struct{}) {
	defer close(allGone)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return // ECHILD: nothing left
		}
		if pid == child {
			exited <- ws
		}
		select {
		case reaped <- struct{}{}:
		default:
		}
	}
}

// killUser sends SIGKILL to every process of uid, from a thread that takes
// that uid for the purpose and then dies with its goroutine: kill(-1) from
// there reaches exactly that user's processes, even those that left the
// process group or were not handed to the launcher.
func killUser(uid int) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
			return
		}
		_, _, _ = syscall.RawSyscall(syscall.SYS_KILL, ^uintptr(0), uintptr(syscall.SIGKILL), 0)
	}()
	<-done
}

// killChildren sends SIGKILL to every process whose parent is the launcher:
// the program and the orphans it left, which the kernel hands to the
// subreaper.
func killChildren() {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if parentOf(pid) == self {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// parentOf reads a process's parent pid from /proc, or -1.
func parentOf(pid int) int {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return -1
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return -1
	}
	fields := strings.Fields(line[i+1:])
	if len(fields) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return -1
	}
	return ppid
}

// resolve is path as a program started in dir finds it, or "" for a bare
// name (looked up in PATH).
func resolve(dir, path string) string {
	if !strings.ContainsRune(path, '/') {
		return ""
	}
	if filepath.IsAbs(path) || dir == "" {
		return path
	}
	return filepath.Join(dir, path)
}

// unwrapExec keeps the useful part of an exec error.
func unwrapExec(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}
