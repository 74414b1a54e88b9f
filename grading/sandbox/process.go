package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcplab/mcplab/lab/proc"
)

// DefaultUIDBase is the first of the users the process sandbox runs
// programs as when the grader runs as root; DefaultUIDCount is how many
// there are. Each slot takes a user of its own for as long as the sandbox
// lives (see Process), because RLIMIT_NPROC counts all the processes of a
// user, and because the launcher's clean-up kills every process of its
// user: with a shared user, one student's fork bomb would use up the
// processes of every student graded beside it, and one clean-up would kill
// another student's server.
const (
	DefaultUIDBase  = 64000
	DefaultUIDCount = 1000
)

// Process is the process sandbox: each program runs as a local process,
// through the launcher (see Main), in a process group of its own, with
// resource limits, and as an unprivileged user of its slot when the grader
// runs as root. Stopping it kills and reaps everything it started.
//
// When the grader runs as root, the launcher also starts in new PID, mount
// and network namespaces (unless NoNamespaces is set, or the kernel refuses
// them, when it carries on without): the program sees only its own
// processes (not the grader's command line or environment), has a private
// /proc, /tmp, /var/tmp, /dev/shm and /run/lock (with the folders it needs
// under /tmp bound back), no network but its own loopback, and cannot
// read or run the lab binary at the path the launcher was started from.
// Each job's scratch folder (LAB_WORK) is a tmpfs of its own of
// WorkspaceSize, and the private /tmp, /var/tmp, /dev/shm and /run/lock of
// each run are empty folders made in it for the run and removed once the
// run has ended (before Wait returns): LAB_WORK and every run's scratch
// come out of that one cap (see DefaultWorkspaceSize), and nothing a run
// left in its /tmp reaches the next run, nor any other job. (A Work folder
// that is not a file system of its own, one Workspace did not make, keeps
// them out of it: each is then a tmpfs of DefaultScratchSize, gone with
// the namespace.) The namespaces also give it a System V IPC of its own
// (no segment, queue or semaphore of another job in sight, and none left
// after it). Without namespaces, the program writes in the machine's
// /tmp, /var/tmp, /dev/shm and /run/lock, which no cap of the job's
// covers (Limits.FileSize caps each file), and the launcher removes the
// slot user's System V objects and its files there after the job.
//
// As root, each job also runs in a memory cgroup of its own (cgroup v2 when
// it offers the memory controller, else v1), made under the grader's own
// cgroup and removed after the job: the job's processes together may use
// at most Limits.Memory, and a program the kernel kills for it ends with
// Exit.Reason "killed for using more than N MiB of memory". Where no
// cgroup can be had (not root, no memory controller, NoMemoryCgroup), the
// limit is RLIMIT_DATA, which holds for each process on its own; the
// sandbox says so once, on Notes.
//
// The users are taken from the range UIDBase to UIDBase+UIDCount-1: a slot
// takes the first one that no other sandbox on the machine holds, locking
// a file in /run/mcplab (a lock the kernel drops when the grader ends), and
// keeps it until Close. The uid's group has the same number.
//
// As another user, the program can only read the files every user may
// read: the submission folders (and the folders above them) must be
// readable by all, or the start fails and says so. The program still sees
// the machine's files; use the container sandbox to hide them. When the
// grader does not run as root, the program runs as the grader's own user,
// with the same limits except RLIMIT_NPROC, which would count the grader's
// own processes.
type Process struct {
	// Launcher is the command that runs Main, such as the lab binary
	// followed by "grade-class", "sandbox-exec".
	Launcher []string
	// UIDBase and UIDCount override DefaultUIDBase and DefaultUIDCount
	// when they are more than 0.
	UIDBase, UIDCount int
	// WorkspaceSize caps each job's scratch space, as root: LAB_WORK and,
	// in namespaces, each run's /tmp, /var/tmp, /dev/shm and /run/lock,
	// which are folders of it. 0 means DefaultWorkspaceSize (see there).
	WorkspaceSize int64

	once   sync.Once
	goroot string

	// NoNamespaces keeps programs in the grader's own PID, mount and
	// network namespaces even when the grader is root (see Process).
	NoNamespaces bool

	noNamespaces atomic.Bool // the kernel refused them

	// NoMemoryCgroup keeps programs out of a memory cgroup of their own
	// even where the kernel offers one: each process of a job is then
	// limited on its own, by RLIMIT_DATA (see Process).
	NoMemoryCgroup bool
	// Notes receives the sandbox's one-time notes, such as that no memory
	// cgroup can be had here; nil means os.Stderr.
	Notes io.Writer
	// Private are folders a program that runs as the grader's own user
	// (the grader is not root) may neither read nor write: grade-class
	// names its results folder and the folder of the key that signs its
	// records. Such a program may also write only its workspace and
	// /dev/shm. Landlock holds it to both where the kernel has it; where
	// it has not, Notes says so once and the program can reach whatever
	// the grader's user can. (As root, programs run as users of their
	// own, who cannot enter the grader's folders.)
	Private []string

	llOnce sync.Once
	llOK   bool

	cgOnce sync.Once
	cgHost cgroupHost
	cgErr  error
	jobs   atomic.Int64 // names the jobs' cgroups

	mu    sync.Mutex
	users map[int]int // slot → uid
	locks []*os.File
}

// NewProcess returns a process sandbox whose launcher is the command
// launcher (see Process.Launcher).
func NewProcess(launcher []string) *Process { return &Process{Launcher: launcher} }

// Name returns "process".
func (*Process) Name() string { return "process" }

// StartCost is the time starting a local program takes.
func (*Process) StartCost() time.Duration { return 50 * time.Millisecond }

// Close gives back the users the slots took.
func (s *Process) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.locks {
		f.Close()
	}
	s.locks, s.users = nil, nil
	return nil
}

// User returns the uid and gid programs of slot run as, or -1 and -1 when
// they keep the grader's own user (the grader is not root).
func (s *Process) User(slot int) (uid, gid int, err error) {
	if os.Geteuid() != 0 {
		return -1, -1, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if uid, ok := s.users[slot]; ok {
		return uid, uid, nil
	}
	base, count := s.UIDBase, s.UIDCount
	if base <= 0 {
		base = DefaultUIDBase
	}
	if count <= 0 {
		count = DefaultUIDCount
	}
	dir := "/run/mcplab"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return -1, -1, fmt.Errorf("the process sandbox's user locks: %w", err)
	}
	for uid := base; uid < base+count; uid++ {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("uid-%d.lock", uid)), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return -1, -1, fmt.Errorf("the process sandbox's user locks: %w", err)
		}
		if err := lockExclusive(f); err != nil {
			f.Close()
			continue // another sandbox holds this user
		}
		if s.users == nil {
			s.users = map[int]int{}
		}
		s.users[slot] = uid
		s.locks = append(s.locks, f)
		return uid, uid, nil
	}
	return -1, -1, fmt.Errorf("all %d sandbox users (uid %d to %d) are taken by other graders", count, base, base+count-1)
}

// Workspace creates dir for a job in slot and gives it to the slot's user.
func (s *Process) Workspace(dir string, slot int, goSeed string) error {
	uid, gid, err := s.User(slot)
	if err != nil {
		return err
	}
	return mkWorkspace(dir, uid, gid, goSeed, s.WorkspaceSize)
}

// Starter returns a Starter that runs spec's program through the launcher.
func (s *Process) Starter(spec Spec) proc.Starter {
	s.once.Do(func() { s.goroot = goRoot() })
	return &specStarter{spec: spec, job: func(spec Spec) job { return &processJob{sb: s, spec: spec} }}
}

// processJob is one spec's job in the process sandbox.
type processJob struct {
	sb   *Process
	spec Spec
}

// startWithin bounds the wait for the launcher to say the program runs.
const startWithin = 30 * time.Second

func (ps *processJob) Start(ctx context.Context) (proc.Process, error) {
	if len(ps.sb.Launcher) == 0 {
		return nil, errors.New("the process sandbox has no launcher")
	}
	spec := ps.spec
	lim := spec.Limits.orDefaults()
	uid, gid, err := ps.sb.User(spec.Slot)
	if err != nil {
		return nil, err
	}
	args := append([]string(nil), ps.sb.Launcher[1:]...)
	args = append(args,
		"-uid", strconv.Itoa(uid), "-gid", strconv.Itoa(gid),
		"-data", strconv.FormatInt(lim.Memory, 10),
		"-fsize", strconv.FormatInt(lim.FileSize, 10),
		"-nofile", strconv.Itoa(lim.Files),
		"-dir", spec.Dir)
	if uid >= 0 {
		args = append(args, "-nproc", strconv.Itoa(lim.Procs))
	} else if ps.sb.fileRules() {
		// The grader's own user: only Landlock keeps the program out of
		// the results and the record key, and off the other jobs'
		// workspaces (see Process.Private).
		args = append(args, "-files", "-writable", spec.Work, "-writable", "/dev/shm")
		for _, p := range ps.sb.Private {
			args = append(args, "-private", p)
		}
	}
	useNS := uid >= 0 && ps.sb.namespaces()
	var scratch *runScratch
	if useNS {
		args = append(args, "-ns")
		// The run's /tmp, /var/tmp, /dev/shm and /run/lock are folders
		// of its workspace, under the job's cap, removed after the run.
		if scratch, err = newRunScratch(spec.Work, processScratch()); err != nil {
			return nil, err
		}
		if scratch != nil {
			args = append(args, scratchDirFlag, scratch.dir)
		}
		// The grader's own folder stays in sight too: run scripts may name
		// files beside it (a course's shared servers), as they could
		// without namespaces, and a checkout under /tmp must grade alike.
		// Under /tmp only these paths are bound back (see enterNamespaces),
		// never /tmp itself. Without a Root, the folder two above Dir
		// stands for it (a class folder holding SUBMISSIONS/NAME), so run
		// scripts name ../../servers as they do outside /tmp.
		for _, k := range ps.kept() {
			args = append(args, "-keep", k)
		}
	}
	args = append(args, "--", spec.Path)
	args = append(args, spec.Args...)
	p, err := ps.start(ctx, args, useNS, scratch)
	if useNS && err != nil && errors.Is(err, errNoNamespaces) {
		// The kernel (or the container the grader runs in) refuses new
		// namespaces: go on without them, for this start and, when it
		// refused to make them at all, every later one.
		if !errors.Is(err, errNSSetup) {
			ps.sb.noNamespaces.Store(true)
		}
		return ps.start(ctx, withoutNS(args), false, nil)
	}
	return p, err
}

// kept is what the job keeps in sight in its namespaces: its submission
// and work folders, the class folder, the program, the Go installation,
// the grader's own folder and every shared path (the absolute ones).
func (ps *processJob) kept() []string {
	spec := ps.spec
	wd, _ := os.Getwd()
	root := spec.Root
	if root == "" && filepath.IsAbs(spec.Dir) {
		root = filepath.Dir(filepath.Dir(filepath.Clean(spec.Dir)))
	}
	var out []string
	for _, k := range append([]string{spec.Dir, spec.Work, root, spec.Path, ps.sb.goroot, wd}, spec.Share...) {
		if filepath.IsAbs(k) {
			out = append(out, k)
		}
	}
	return out
}

// errNoNamespaces marks a launcher that could not be started in new
// namespaces; errNSSetup, one that was, but could not set them up.
var (
	errNoNamespaces = errors.New("new namespaces are not allowed here")
	errNSSetup      = errors.New("the launcher could not set up its namespaces")
)

// withoutNS drops the -ns, -scratchdir and -keep arguments of a
// launcher's command line.
func withoutNS(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--":
			return append(out, args[i:]...)
		case args[i] == "-ns":
		case args[i] == "-keep", args[i] == scratchDirFlag:
			i++
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// namespaces reports whether programs get namespaces of their own (see
// Process): the grader is root, and they have not been refused.
func (s *Process) namespaces() bool {
	return os.Geteuid() == 0 && !s.NoNamespaces && !s.noNamespaces.Load()
}

// Namespaces reports whether the programs the sandbox starts get PID,
// mount and network namespaces of their own (see Process). It may turn
// false at the first start, when the kernel refuses them.
func (s *Process) Namespaces() bool { return s.namespaces() }

// start starts the launcher with args, in new namespaces with useNS, and
// in a memory cgroup of the job's own when there can be one; scratch (nil
// when none) is the run's scratch folder, which is finished (see
// runScratch.finish) once the launcher has ended, or failed to start.
func (ps *processJob) start(ctx context.Context, args []string, useNS bool, scratch *runScratch) (proc.Process, error) {
	memory := ps.spec.Limits.orDefaults().Memory
	cg := ps.sb.jobCgroup(memory)
	if cg != nil {
		args = withCgroup(args, cg.dir)
	}
	cleanup := func() {
		// Every process of the run is gone: the launcher, first in its
		// PID namespace, took the rest down with it.
		if err := scratch.finish(); err != nil {
			ps.sb.note("process sandbox: " + err.Error())
		}
		if cg != nil {
			if err := cg.remove(); err != nil {
				ps.sb.note(err.Error())
			}
		}
	}
	var limit int64
	if cg != nil {
		limit = max(memory, minCgroupMemory)
	}
	p, err := ps.launch(ctx, args, useNS, limit, cleanup)
	if err != nil {
		cleanup()
		return nil, err
	}
	return p, nil
}

// minCgroupMemory is the smallest limit of a job's memory cgroup: the
// launcher is in it for the moment it starts the program, and a shell with
// a few tools needs a few MiB more.
const minCgroupMemory = 64 << 20

// withCgroup adds -cgroup dir to a launcher's options.
func withCgroup(args []string, dir string) []string {
	for i, a := range args {
		if a == "--" {
			out := append(append([]string(nil), args[:i]...), "-cgroup", dir)
			return append(out, args[i:]...)
		}
	}
	return args
}

// jobCgroup makes the memory cgroup of a new job, capped at memory bytes,
// or returns nil when no cgroup can be had here (said once on Notes).
func (s *Process) jobCgroup(memory int64) *jobCgroup {
	if s.NoMemoryCgroup {
		return nil
	}
	s.cgOnce.Do(func() {
		s.cgHost, s.cgErr = findCgroupHost()
		if s.cgErr != nil {
			s.note(fmt.Sprintf("process sandbox: no memory cgroup for the jobs (%v): each process of a job may use %d MiB (RLIMIT_DATA), but a job's processes together are not capped; the container sandbox caps them together", s.cgErr, memory>>20))
		}
	})
	if s.cgErr != nil {
		return nil
	}
	// Several sandboxes may live in one grader: a random part keeps their
	// jobs' names apart.
	var id [6]byte
	_, _ = rand.Read(id[:])
	name := fmt.Sprintf("mcplab-%d-%x-%d", os.Getpid(), id, s.jobs.Add(1))
	cg, err := s.cgHost.newJob(name, max(memory, minCgroupMemory))
	if err != nil {
		s.note(fmt.Sprintf("process sandbox: %v; this job's processes are capped one by one (RLIMIT_DATA)", err))
		return nil
	}
	return cg
}

// fileRules reports whether programs run as the grader's own user are held
// to file rules (see Process.Private): the kernel has Landlock. Where it
// has not, it says so once on Notes.
func (s *Process) fileRules() bool {
	s.llOnce.Do(func() {
		s.llOK = hasFileRules()
		if !s.llOK {
			s.note("process sandbox: programs run as your own user (the grader is not root) and this kernel has no Landlock, so a student's program can read and write whatever you can, the results folder and the record key included; run the grader as root or use --sandbox container for code you do not trust")
		}
	})
	return s.llOK
}

// note writes a line to Notes.
func (s *Process) note(line string) {
	w := s.Notes
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintln(w, line)
}

// launch starts the launcher; memory is the limit of the job's memory
// cgroup (0 without one), and cleanup runs once the launcher has ended,
// before Wait returns.
func (ps *processJob) launch(ctx context.Context, args []string, useNS bool, memory int64, cleanup func()) (*sandboxedProcess, error) {
	spec := ps.spec
	cmd := exec.Command(ps.sb.Launcher[0], args...)
	cmd.Env = append(env(spec.Work, ps.sb.goroot, os.Getenv("PATH")), spec.Env...)
	cmd.Dir = "/"
	cmd.SysProcAttr = groupAttr()
	if useNS {
		setNamespaces(cmd.SysProcAttr)
	}

	var files []*os.File // every end, closed on failure
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	statusR, statusW, err4 := pipe()
	lifeR, lifeW, err5 := pipe()
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		closeAll()
		return nil, fmt.Errorf("starting %s: %w", spec.Path, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.ExtraFiles = []*os.File{statusW, lifeR}
	if err := cmd.Start(); err != nil {
		closeAll()
		if useNS && isPermission(err) {
			return nil, fmt.Errorf("%w: %v", errNoNamespaces, err)
		}
		return nil, fmt.Errorf("starting the sandbox launcher %s: %w", ps.sb.Launcher[0], err)
	}
	for _, f := range []*os.File{inR, outW, errW, statusW, lifeR} {
		f.Close() // the launcher holds its own copies
	}
	p := &sandboxedProcess{Ends: proc.NewEnds(inW, outR, errR), cmd: cmd, life: lifeW}
	status := bufio.NewReader(statusR)

	line := firstStatus(ctx, status)
	if pid, ok := strings.CutPrefix(line, "ok "); ok {
		if !useNS {
			// In its own PID namespace the program's pid means nothing
			// here; killing the launcher, the namespace's first process,
			// kills the lot.
			p.child, _ = strconv.Atoi(pid)
		}
	} else {
		lifeW.Close()
		killGroup(cmd.Process.Pid)
		_ = cmd.Wait()
		inW.Close()
		outR.Close()
		errR.Close()
		statusR.Close()
		return nil, launchFailure(line, useNS)
	}

	go func() {
		err := cmd.Wait()
		exit := launcherExit(status, cmd.ProcessState, err, memory)
		cleanup()
		statusR.Close()
		// Nothing reads the other ends any more; the output pipes are
		// the reader's to close (CloseOutput).
		lifeW.Close()
		inW.Close()
		p.End(exit)
	}()
	proc.KillOnCancel(ctx, p.Done(), p.Kill)
	return p, nil
}

// firstStatus is the launcher's first status line ("ok PID" or "error:
// ..."), or an error line of its own when none came within startWithin or
// ctx ended first.
func firstStatus(ctx context.Context, status *bufio.Reader) string {
	first := make(chan string, 1)
	go func() {
		line, _ := status.ReadString('\n')
		first <- strings.TrimSpace(line)
	}()
	timer := time.NewTimer(startWithin)
	defer timer.Stop()
	select {
	case line := <-first:
		return line
	case <-timer.C:
		return fmt.Sprintf("error: the sandbox launcher did not start the program within %v", startWithin)
	case <-ctx.Done():
		return "error: " + ctx.Err().Error()
	}
}

// launchFailure is the error of a launcher whose first status line was
// not "ok PID": what it said after "error: ", marked as a namespace set-up
// failure when it was one (with useNS).
func launchFailure(line string, useNS bool) error {
	why, found := strings.CutPrefix(line, "error: ")
	if !found {
		why = "the sandbox launcher ended before it started the program"
	}
	if useNS && strings.HasPrefix(why, nsFailure) {
		return fmt.Errorf("%w: %w: %s", errNoNamespaces, errNSSetup, why)
	}
	return errors.New(why)
}

// launcherExit reads how the program ended from the launcher's last status
// lines, falling back on the launcher's own exit.
// A program killed by the kernel in its memory cgroup (capped at memory
// bytes) ends with a Reason saying so.
func launcherExit(status *bufio.Reader, st *os.ProcessState, waitErr error, memory int64) proc.Exit {
	var exit *proc.Exit
	oom := false
	for {
		line, err := status.ReadString('\n')
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "oom-kills ") {
			oom = true
		} else if v, ok := strings.CutPrefix(line, "exit code "); ok {
			if n, err := strconv.Atoi(v); err == nil {
				exit = &proc.Exit{Code: n}
			}
		} else if v, ok := strings.CutPrefix(line, "exit signal "); ok {
			exit = &proc.Exit{Code: -1, Signal: v}
		}
		if err != nil {
			break
		}
	}
	if exit != nil {
		if oom && exit.Signal == "killed" && memory > 0 {
			exit.Reason = fmt.Sprintf("killed for using more than %d MiB of memory (the process sandbox's limit for the job's processes together)", memory>>20)
		}
		return *exit
	}
	s := proc.StatusOf(st, waitErr)
	return proc.Exit{Code: s.Code, Signal: s.Signal, Err: s.Err}
}

// The process sandbox tells the client how much of stdin the program has
// not read yet.
var _ proc.StdinBacklogger = (*sandboxedProcess)(nil)

// cleanupWithin bounds the launcher's wait for the last of the program's
// processes to die once they were all sent SIGKILL.
const cleanupWithin = 5 * time.Second

// killWithin is how long Kill lets the launcher clean up before it kills
// the launcher and the program's group outright.
const killWithin = cleanupWithin + 2*time.Second

type sandboxedProcess struct {
	*proc.Ends[*os.File, *os.File]
	cmd      *exec.Cmd
	child    int
	life     *os.File
	killOnce sync.Once
}

// StdinBacklog says how many bytes written to the program's stdin it has
// not read yet (see proc.StdinBacklogger): the launcher hands the pipe
// to the program itself, so the pipe's backlog is the program's.
func (p *sandboxedProcess) StdinBacklog() (int, error) { return proc.PipeBacklog(p.In) }

// Terminate sends SIGTERM to the launcher, which passes it on to the
// program alone (see proc.Terminator): a server may finish what is in
// flight and exit by itself.
func (p *sandboxedProcess) Terminate() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return fmt.Errorf("sending SIGTERM to the sandbox: %w", err)
	}
	return nil
}

// Kill closes the lifeline: the launcher kills and reaps everything the
// program started, then exits. Should the launcher not manage it in time,
// the launcher and the program's process group are killed outright.
func (p *sandboxedProcess) Kill() {
	p.killOnce.Do(func() {
		p.life.Close()
		go func() {
			t := time.NewTimer(killWithin)
			defer t.Stop()
			select {
			case <-p.Done():
			case <-t.C:
				if p.child > 0 {
					killGroup(p.child)
				}
				killGroup(p.cmd.Process.Pid)
			}
		}()
	})
}

// CloseOutput releases the output pipes once the grader has read what it
// wants.
func (p *sandboxedProcess) CloseOutput() {
	p.Out.Close()
	p.ErrOut.Close()
}
