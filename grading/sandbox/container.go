package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/docker/go-units"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/mcplab/mcplab/lab/proc"
)

// DefaultImage is the image the container sandbox runs programs in: Debian
// with bash, coreutils and python3, and a user "runner" (uid 65532), built
// by docker/runner-image.sh without any registry.
const DefaultImage = "mcplab/runner:bookworm"

// DefaultContainerUser is the user programs run as in the container
// sandbox when the grader runs as root (the image's "runner").
const DefaultContainerUser = 65532

// containerPath is PATH inside the container; the host's Go toolchain, when
// there is one, goes first.
const containerPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// ErrNoEngine is returned by NewContainer when no Docker engine answers.
var ErrNoEngine = errors.New("no Docker engine answers")

// Container is the container sandbox: each program runs in a container of
// its own, created through testcontainers-go, with no network, a memory
// limit with no swap, a pids limit, one CPU, a read-only root file system,
// no capabilities, no-new-privileges, an init process that reaps zombies,
// and no log driver (its output reaches only the grader). Programs run as
// DefaultContainerUser, or as the grader's own user when the grader is not
// root (so the grader can delete what they write).
//
// As root, the job's workspace is a tmpfs of WorkspaceSize on the host,
// and the container's /tmp and /dev/shm are empty folders made in it for
// the run (bound in their places) and removed once the container has
// ended, before Wait returns: LAB_WORK and every run's /tmp and /dev/shm
// come out of the job's one cap (see DefaultWorkspaceSize). Without root,
// or with a Work folder that is not a file system of its own, /tmp is a
// tmpfs of DefaultScratchSize (noexec) and /dev/shm the engine's (64 MiB
// unless it was told otherwise), apart from LAB_WORK, and gone with the
// container.
//
// Host paths keep their names inside the container: Spec.Root (the
// submission folder by default) is mounted read-only at its own path, the
// workspace read-write at its own path, the host's Go installation
// read-only at its own path (so a build sees the GOROOT the seed cache was
// compiled against), and each Spec.Share read-only. A run script therefore
// finds its files where it would outside the container.
//
// A program's stdin is a named pipe on the grader's kernel, opened by the
// image's /bin/sh before the engine's init starts the program (see
// stdinFIFO), so the grader knows what it has not read, to the byte.
//
// A container killed by the kernel for memory ends with Exit.Reason
// "killed for using more than N MiB of memory". An exit status of 128+N
// from the container's init is reported as signal N.
type Container struct {
	// Image is the image to run; empty means DefaultImage.
	Image string
	// WorkspaceSize caps each job's scratch space (LAB_WORK, and each
	// run's /tmp and /dev/shm, which are folders of it); 0 means
	// DefaultWorkspaceSize (see there).
	WorkspaceSize int64
	// Notes receives what goes wrong after a run that the run's own exit
	// cannot say (a run's scratch folders that could not be removed); nil
	// means os.Stderr.
	Notes io.Writer

	cli    *testcontainers.DockerClient
	goroot string
	// run labels every container of this sandbox, so Close can remove any
	// that is left (a grader stopped while a container was starting).
	run string
	// grader labels every container with the process that made it, so a
	// later sandbox removes those of a grader killed outright (see
	// graderLabel).
	grader string
}

// NewContainer connects to the Docker engine and checks that the image is
// there. testcontainers-go would start its Ryuk reaper, whose image must be
// pulled from a registry: set TESTCONTAINERS_RYUK_DISABLED=true before the
// first call (the sandbox removes its own containers). The error wraps
// ErrNoEngine when no engine answers.
func NewContainer(ctx context.Context, image string) (*Container, error) {
	if image == "" {
		image = DefaultImage
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	if _, err := cli.ImageInspect(ctx, image); err != nil {
		cli.Close()
		return nil, fmt.Errorf("the container sandbox's image %s is not on this machine (docker/runner-image.sh builds it): %w", image, err)
	}
	c := &Container{Image: image, cli: cli, goroot: goRoot(), run: randomSuffix(), grader: graderID()}
	c.removeOrphans(ctx)
	return c, nil
}

// Name returns "container".
func (*Container) Name() string { return "container" }

// StartCost is the time creating, attaching and starting a container takes
// on an unloaded machine.
func (*Container) StartCost() time.Duration { return 600 * time.Millisecond }

// Close removes every container of the sandbox that is still there, and
// closes the connection to the engine.
func (c *Container) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), apiWithin)
	defer cancel()
	list, err := c.cli.ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: client.Filters{}.Add("label", runLabel+"="+c.run)})
	if err == nil {
		for _, ctr := range list.Items {
			c.remove(ctr.ID)
		}
	}
	return errors.Join(err, c.cli.Close())
}

// runLabel is the label that ties a container to the sandbox that made it.
const runLabel = "mcplab.run"

func (c *Container) user() (int, int) {
	if os.Geteuid() == 0 {
		return DefaultContainerUser, DefaultContainerUser
	}
	return os.Geteuid(), os.Getegid()
}

// Workspace creates dir for a job and gives it to the container's user.
func (c *Container) Workspace(dir string, _ int, goSeed string) error {
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		uid, gid = c.user()
	}
	return mkWorkspace(dir, uid, gid, goSeed, c.WorkspaceSize)
}

// Starter returns a Starter that runs spec's program in a new container at
// each Start.
func (c *Container) Starter(spec Spec) proc.Starter {
	return &specStarter{spec: spec, job: func(spec Spec) job { return &containerJob{c: c, spec: spec} }}
}

// containerJob is one spec's job in the container sandbox: a Wrap's
// visible folder is mounted read-only at the same path (see mounts).
type containerJob struct {
	c    *Container
	spec Spec
}

// silentLogger keeps testcontainers' progress lines out of the grader's
// output.
type silentLogger struct{}

func (silentLogger) Printf(string, ...any) {}

// streamBuffer is how much of each output stream the sandbox holds for a
// grader that has not read it yet.
const streamBuffer = 1 << 20

// apiWithin bounds each call to the engine that is not the run itself.
// It is not a deadline of the student's: a loaded engine (a CI machine
// creating a dozen containers at once took over 30 s to start one, and
// another took over 2 minutes for a create, an attach and a start
// together) is waited for, each call with a bound of its own, and a start
// that still runs out of it is tried again (see startAttempts).
const apiWithin = 2 * time.Minute

// startAttempts is how many times Start creates, attaches and starts a
// container when the engine runs out of apiWithin: a program is refused a
// start only when the engine is stuck, never because it was slow once.
const startAttempts = 2

// engineTimedOut reports whether err is an engine call that ran out of its
// own bound while the caller's ctx was still alive.
func engineTimedOut(ctx context.Context, err error) bool {
	return ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded)
}

// Start creates the job's container (no network, read-only but for its
// work folder, /tmp and /dev/shm, every capability dropped, under the
// limits), with its stdin a named pipe of the grader's (see stdinFIFO),
// attaches to its output and starts it; each call to the engine is
// bounded by apiWithin, and when one runs out of it the container is
// removed and the whole start tried again, up to startAttempts times. The
// run's /tmp and /dev/shm are made in the workspace first, when it is a
// file system of its own (see runScratch), and removed when the container
// has ended or could not start.
func (cs *containerJob) Start(ctx context.Context) (proc.Process, error) {
	return startRetrying(ctx, cs.startOnce)
}

// startRetrying calls once until it succeeds, fails for a reason other
// than an engine call running out of apiWithin, or has been called
// startAttempts times; the last error then says that the program was never
// run, and why that is not the program's doing.
func startRetrying(ctx context.Context, once func(context.Context) (proc.Process, error)) (proc.Process, error) {
	var errs []error
	for attempt := 1; ; attempt++ {
		p, err := once(ctx)
		if err == nil {
			return p, nil
		}
		if !engineTimedOut(ctx, err) {
			return nil, errors.Join(append(errs, err)...)
		}
		errs = append(errs, fmt.Errorf("attempt %d: %w", attempt, err))
		if attempt == startAttempts {
			return nil, fmt.Errorf("the container engine did not answer a call within %v, %d times in a row, so the program was never run "+
				"(the machine is overloaded or the engine is stuck; this says nothing about the program: grade it again once the engine answers): %w",
				apiWithin, startAttempts, errors.Join(errs...))
		}
	}
}

// startOnce is one attempt of Start.
func (cs *containerJob) startOnce(ctx context.Context) (proc.Process, error) {
	lim := cs.spec.Limits.orDefaults()
	// The container's /tmp and /dev/shm are folders of the job's
	// workspace, under its cap, removed after the run (nil: tmpfs of
	// their own).
	scratch, err := newRunScratch(cs.spec.Work, containerScratch())
	if err != nil {
		return nil, err
	}
	in, err := newStdinFIFO(cs.c.user())
	if err != nil {
		_ = scratch.finish()
		return nil, err
	}
	fail := func(id string, err error) (proc.Process, error) {
		if id != "" {
			cs.c.remove(id)
		}
		in.remove()
		return nil, errors.Join(err, scratch.finish())
	}
	req := cs.request(lim, in, scratch)
	createCtx, cancelCreate := context.WithTimeout(ctx, apiWithin)
	defer cancelCreate()
	ctr, err := testcontainers.GenericContainer(createCtx, req)
	if err != nil {
		id := ""
		if ctr != nil {
			id = ctr.GetContainerID()
		}
		return fail(id, fmt.Errorf("creating the container: %w", err))
	}
	id := ctr.GetContainerID()
	// The attached connection outlives its call's context (cancelled when
	// Start returns): the bound is for the engine's answer only.
	attachCtx, cancelAttach := context.WithTimeout(ctx, apiWithin)
	defer cancelAttach()
	att, err := cs.c.cli.ContainerAttach(attachCtx, id, client.ContainerAttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		return fail(id, fmt.Errorf("attaching to the container: %w", err))
	}
	startCtx, cancelStart := context.WithTimeout(ctx, apiWithin)
	defer cancelStart()
	started := time.Now()
	if err := ctr.Start(startCtx); err != nil {
		att.Close()
		return fail(id, fmt.Errorf("starting the container: %w", err))
	}

	p := &containerProcess{Ends: proc.NewEnds(in, newStream(streamBuffer), newStream(streamBuffer)),
		c: cs.c, id: id, att: att.HijackedResponse, started: started,
		copied: make(chan struct{}), memory: lim.Memory, scratch: scratch}
	go func() {
		_, err := stdcopy.StdCopy(p.Out, p.ErrOut, att.Reader)
		// Whatever the demultiplexer made of the rest, the connection is
		// read to its end, so the engine is never kept waiting.
		_, _ = io.Copy(io.Discard, att.Reader)
		p.Out.closeWrite(err)
		p.ErrOut.closeWrite(err)
		close(p.copied)
	}()
	go p.watch()
	proc.KillOnCancel(ctx, p.Done(), p.Kill)
	return p, nil
}

// imageOwn are the folders of the runner image itself: a path there is
// the image's, not a host path the container lacks.
var imageOwn = [...]string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/dev", "/proc", "/sys"}

// HidesPath says why the program cannot reach path, which the grader can:
// a host path outside every folder the container mounts (the class
// folder, the work folder, the Go installation, the shared paths) and
// outside the image's own system folders. "" when it can.
func (cs *containerJob) HidesPath(path string) string {
	if !filepath.IsAbs(path) {
		return ""
	}
	path = filepath.Clean(path)
	if _, err := os.Lstat(path); err != nil {
		return ""
	}
	for _, d := range imageOwn {
		if path == d || strings.HasPrefix(path, d+"/") {
			return ""
		}
	}
	for _, m := range cs.mounts() {
		if path == m.Target || strings.HasPrefix(path, strings.TrimSuffix(m.Target, "/")+"/") {
			return ""
		}
	}
	return "the container holds only its own system folders and, at their own paths, the class folder, " +
		"the work folder, the Go installation and the folders shared with it; " + path + " is none of them"
}

// mounts binds the work folder read-write, and the submission's root, the
// Go installation and every shared path read-only, each at its own path
// and once.
func (cs *containerJob) mounts() []mount.Mount {
	spec := cs.spec
	root := spec.Root
	if root == "" {
		root = spec.Dir
	}
	var mounts []mount.Mount
	seen := map[string]bool{}
	bind := func(path string, readOnly bool) {
		if path == "" || seen[path] {
			return
		}
		seen[path] = true
		mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: path, Target: path, ReadOnly: readOnly})
	}
	bind(spec.Work, false)
	bind(root, true)
	bind(cs.c.goroot, true)
	for _, s := range spec.Share {
		bind(s, true)
	}
	return mounts
}

// request is the container of the job, under the limits lim: the program
// as the slot's user, reading the pipe in as its stdin, no network,
// private IPC, a read-only root, no capability, no new privileges, an
// init, no logs. Its /tmp and /dev/shm are the folders of scratch, the
// run's in the job's workspace, or, when scratch is nil, a tmpfs of
// DefaultScratchSize and the engine's own /dev/shm (64 MiB by default).
func (cs *containerJob) request(lim Limits, in *stdinFIFO, scratch *runScratch) testcontainers.GenericContainerRequest {
	spec := cs.spec
	path := spec.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(spec.Dir, path)
	}
	uid, gid := cs.c.user()
	mounts := append(cs.mounts(), mount.Mount{Type: mount.TypeBind, Source: in.dir, Target: in.dir, ReadOnly: true})
	tmpfs := map[string]string{"/tmp": fmt.Sprintf("rw,noexec,nosuid,nodev,size=%d", DefaultScratchSize)}
	if scratch != nil {
		tmpfs = nil
		for _, f := range scratch.folders {
			mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: scratch.folder(f.path), Target: f.path})
		}
	}
	pids := int64(lim.Procs)
	init := true
	return testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:  cs.c.Image,
			Cmd:    stdinFrom(in.path, path, spec.Args),
			Labels: map[string]string{"mcplab.sandbox": "grade-class", runLabel: cs.c.run, graderLabel: cs.c.grader},
			ConfigModifier: func(cfg *container.Config) {
				cfg.AttachStdout, cfg.AttachStderr = true, true
				cfg.Tty = false
				cfg.User = fmt.Sprintf("%d:%d", uid, gid)
				cfg.WorkingDir = spec.Dir
				cfg.Env = append(env(spec.Work, cs.c.goroot, containerPath), spec.Env...)
			},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.NetworkMode = "none"
				// System V IPC of its own, whatever the engine's default:
				// no segment of another job in sight, none left after it.
				hc.IpcMode = "private"
				hc.Mounts = mounts
				hc.Tmpfs = tmpfs
				hc.ReadonlyRootfs = true
				hc.CapDrop = []string{"ALL"}
				hc.SecurityOpt = []string{"no-new-privileges"}
				hc.Init = &init
				hc.LogConfig = container.LogConfig{Type: "none"}
				hc.Memory = lim.Memory
				hc.MemorySwap = lim.Memory
				hc.PidsLimit = &pids
				hc.NanoCPUs = 1e9
				hc.Ulimits = []*container.Ulimit{
					{Name: "core", Soft: 0, Hard: 0},
					{Name: "nofile", Soft: int64(lim.Files), Hard: int64(lim.Files)},
					{Name: "fsize", Soft: lim.FileSize, Hard: lim.FileSize},
				}
			},
		},
		Logger: silentLogger{},
	}
}

// note writes a line to Notes.
func (c *Container) note(line string) {
	w := c.Notes
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintln(w, line)
}

// remove deletes a container, running or not.
func (c *Container) remove(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), apiWithin)
	defer cancel()
	_, _ = c.cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true})
}

type containerProcess struct {
	// End is called once the container's exit is known (watch).
	*proc.Ends[*stdinFIFO, *stream]
	c         *Container
	id        string
	att       client.HijackedResponse
	copied    chan struct{} // closed when the output stream ended
	memory    int64
	scratch   *runScratch // the run's /tmp and /dev/shm, or nil
	killOnce  sync.Once
	killed    atomic.Bool // the grader killed it
	started   time.Time
	closeOnce sync.Once
}

// watch waits for the container to stop, reads how it ended, lets the last
// of its output through, and removes it.
func (p *containerProcess) watch() {
	ctx := context.Background()
	wr := p.c.cli.ContainerWait(ctx, p.id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	var exit proc.Exit
	select {
	case r := <-wr.Result:
		code := int(r.StatusCode)
		oom := false
		if code == 128+int(syscall.SIGKILL) && !p.killed.Load() {
			oom = p.killedForMemory(ctx)
		}
		exit = containerExit(code, oom, p.memory)
	case err := <-wr.Error:
		// The engine no longer says: the container goes, so that nothing
		// of it writes in the run's scratch folders any more.
		exit = proc.Exit{Code: -1, Err: fmt.Errorf("waiting for the container: %w", err)}
		p.c.remove(p.id)
	}
	// Nothing reads the program's stdin any more: a write waiting for it
	// ends, and so does every later one.
	p.In.remove()
	// The container's processes are gone: what its /tmp and /dev/shm
	// held leaves the workspace before the run is over.
	if err := p.scratch.finish(); err != nil {
		p.c.note("container sandbox: " + err.Error())
	}
	p.End(exit)
	// The last of the output, unless the engine keeps the stream open.
	proc.Drain(p.copied, 5*time.Second, p.closeConn)
	p.c.remove(p.id)
	p.closeConn()
}

// oomEventWait bounds the wait for the engine's record of an OOM kill that
// it may publish after the container's exit.
const oomEventWait = 3 * time.Second

// killedForMemory tells whether the kernel killed the container's program
// for memory, for a container that ended by SIGKILL the grader did not
// send. The container's state says so when the engine heard of the OOM
// kill before the exit; the two reach it by separate paths, so when the
// state does not, the engine's "oom" event for the container, which it
// records whichever came first, is waited for a moment.
func (p *containerProcess) killedForMemory(ctx context.Context) bool {
	ictx, cancel := context.WithTimeout(ctx, apiWithin)
	defer cancel()
	if insp, err := p.c.cli.ContainerInspect(ictx, p.id, client.ContainerInspectOptions{}); err == nil && insp.Container.State.OOMKilled {
		return true
	}
	ectx, cancel := context.WithTimeout(ctx, oomEventWait+time.Second)
	defer cancel()
	ev := p.c.cli.Events(ectx, client.EventsListOptions{
		Since:   strconv.FormatInt(p.started.Unix()-1, 10),
		Until:   strconv.FormatInt(time.Now().Add(oomEventWait).Unix(), 10),
		Filters: client.Filters{}.Add("container", p.id).Add("event", "oom"),
	})
	select {
	case _, ok := <-ev.Messages:
		return ok
	case <-ev.Err:
		return false
	case <-ectx.Done():
		return false
	}
}

// containerExit turns a container's end into an Exit.
func containerExit(code int, oomKilled bool, memory int64) proc.Exit {
	s := proc.StatusOfCode(code)
	e := proc.Exit{Code: s.Code, Signal: s.Signal}
	if oomKilled {
		e.Reason = fmt.Sprintf("killed for using more than %s of memory (the container's limit)", units.BytesSize(float64(memory)))
	}
	return e
}

func (p *containerProcess) closeConn() { p.closeOnce.Do(func() { p.att.Close() }) }

// Kill kills the container; watch then removes it. Output that comes
// after the kill is dropped, so a grader that stopped reading (a flood) does
// not hold the container's end up.
func (p *containerProcess) Kill() {
	p.killOnce.Do(func() {
		p.killed.Store(true)
		p.Out.drop()
		p.ErrOut.drop()
		ctx, cancel := context.WithTimeout(context.Background(), apiWithin)
		defer cancel()
		if _, err := p.c.cli.ContainerKill(ctx, p.id, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
			// Already stopped, or the engine failed: removing ends it either way.
			p.c.remove(p.id)
		}
	})
}

// Terminate sends SIGTERM to the container's init, which passes it on to
// the program (see proc.Terminator): a server may finish what is in
// flight and exit by itself.
func (p *containerProcess) Terminate() error {
	ctx, cancel := context.WithTimeout(context.Background(), apiWithin)
	defer cancel()
	if _, err := p.c.cli.ContainerKill(ctx, p.id, client.ContainerKillOptions{Signal: "TERM"}); err != nil {
		return fmt.Errorf("sending SIGTERM to the container: %w", err)
	}
	return nil
}

// CloseOutput stops reading the container's output.
func (p *containerProcess) CloseOutput() {
	p.Out.Close()
	p.ErrOut.Close()
	p.closeConn()
}

var _ proc.StdinBacklogger = (*containerProcess)(nil)

// StdinBacklog says how many bytes written to the program's stdin it has
// not read yet (see proc.StdinBacklogger): the pipe is on this kernel, so
// the count is exact, as for a local pipe.
func (p *containerProcess) StdinBacklog() (int, error) { return p.In.Backlog() }

// stdinFrom is the container's command: a shell that opens the named pipe
// fifo as stdin, then becomes the engine's init again (tini, which the
// engine mounts at /sbin/docker-init), as a subreaper, to start the
// program. The program is started exactly as the container's own init
// would start it (the same exec, the same "exec PATH failed: ..." when it
// cannot be run, no shell's fallback for a script without "#!"), with the
// pipe as its stdin.
func stdinFrom(fifo, path string, args []string) []string {
	return append([]string{"/bin/sh", "-c", `exec /sbin/docker-init -s -- "$0" "$@" <` + shellQuote(fifo), path}, args...)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
