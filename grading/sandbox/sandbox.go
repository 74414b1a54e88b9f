// Package sandbox runs a student's server, or its build step, where it can
// do no harm to the grader, to the machine or to the other students graded
// at the same time. It offers two sandboxes, both proc.Starters:
//
//   - Process runs the program as a local process through a small launcher
//     (the lab binary itself, re-executed: see Main). The launcher sets
//     resource limits, drops to an unprivileged user of its own when the
//     grader runs as root, and kills and reaps everything the program
//     started when it ends or is stopped.
//   - Container runs the program in a Docker container, through
//     testcontainers-go: no network, a memory limit, a process-count limit,
//     a read-only root with a small writable tmpfs, a non-root user and no
//     capabilities, with the submission mounted read-only and stdio attached
//     to the grader.
//
// Both give the program the same environment: LAB_WORK (and HOME) name a
// writable scratch folder that the build step and every run of one
// submission share, and a Go toolchain on PATH with its build cache there.
// As root, both cap a job's scratch space as a whole: LAB_WORK and each
// run's private /tmp and /dev/shm (and, in the process sandbox, /var/tmp
// and /run/lock) are one file system of the job's, of WorkspaceSize (see
// DefaultWorkspaceSize), so one student's files pin a known amount of
// memory at most, summed over all its scenarios.
package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/proc"
)

// The smallest limits the process sandbox sets: its launcher takes the
// program's limits on for the moment it starts the program (so that the
// program inherits them with no gap), and needs this much itself. The
// memory floor is wide because RLIMIT_DATA counts every thread stack: at
// 128 MiB a launcher built with cgo could not start a thread while it
// waited for the program's exec, and died (seen once in CI). For tighter
// memory limits use the container sandbox, whose limit is a cgroup.
const (
	MinMemory = 512 << 20
	MinFiles  = 32
)

// Limits bound what one program run in a sandbox may use. A zero field takes
// the default of DefaultRunLimits.
type Limits struct {
	// Memory caps the memory the program may allocate, in bytes. The
	// process sandbox sets RLIMIT_DATA (an allocation past it fails), at
	// least MinMemory; the container sandbox sets the memory cgroup with
	// no swap (the kernel kills the program, and the run is told "killed
	// for memory").
	Memory int64
	// Procs caps the processes and threads the program may have at once: a
	// fork bomb stops there. The process sandbox sets RLIMIT_NPROC for the
	// slot's own user (only when the grader runs as root: the limit counts
	// every process of a user); the container sandbox sets the pids limit.
	Procs int
	// FileSize caps the size of any file the program writes (RLIMIT_FSIZE).
	// What all the files of a job hold together is capped apart from it,
	// as root, by the workspace's size (see DefaultWorkspaceSize).
	FileSize int64
	// Files caps the files the program may have open (RLIMIT_NOFILE; at
	// least MinFiles in the process sandbox).
	Files int
}

// DefaultRunLimits are the limits of a server under test: ample for any
// lesson 1 server, small enough that a runaway one harms nobody.
func DefaultRunLimits() Limits {
	return Limits{Memory: 512 << 20, Procs: 128, FileSize: 64 << 20, Files: 256}
}

// DefaultBuildLimits are the limits of a build step: a compiler needs more
// memory and processes than the server it builds.
func DefaultBuildLimits() Limits {
	return Limits{Memory: 2 << 30, Procs: 512, FileSize: 512 << 20, Files: 1024}
}

// Or returns l with each zero field taken from d.
func (l Limits) Or(d Limits) Limits {
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.Procs <= 0 {
		l.Procs = d.Procs
	}
	if l.FileSize <= 0 {
		l.FileSize = d.FileSize
	}
	if l.Files <= 0 {
		l.Files = d.Files
	}
	return l
}

func (l Limits) orDefaults() Limits { return l.Or(DefaultRunLimits()) }

// Spec says what to run in a sandbox.
type Spec struct {
	// Dir is the working directory, usually the submission folder.
	Dir string
	// Path is the program, absolute or relative to Dir; Args are its
	// arguments.
	Path string
	Args []string
	// Work is the job's writable scratch folder (see Sandbox.Workspace),
	// given to the program as LAB_WORK and HOME. It must be absolute.
	Work string
	// Slot is the worker slot the job runs in: jobs that run at the same
	// time have different slots, and the process sandbox gives each slot a
	// user of its own.
	Slot int
	// Limits bound the program; zero fields take the defaults.
	Limits Limits
	// Root is the folder the container sandbox mounts read-only, at the
	// same path as on the host; it must hold Dir. Empty means Dir itself.
	// Set it to a parent folder when run scripts refer to files beside the
	// submission folder (such as ../../servers).
	Root string
	// Share lists more host files or folders the container sandbox mounts
	// read-only at the same path (the process sandbox sees the host's files
	// anyway).
	Share []string
	// Env lists more environment variables ("NAME=value"), set after the
	// sandbox's own (an HTTP server lesson's PORT).
	Env []string
}

// Sandbox is a place to build and run submissions.
type Sandbox interface {
	// Name is "process" or "container".
	Name() string
	// Starter returns a Starter that runs spec's program afresh, in the
	// sandbox, at each Start.
	Starter(spec Spec) proc.Starter
	// Workspace creates dir as the scratch folder of a job in slot and
	// hands it to the sandbox user of that slot; as root, it is the job's
	// scratch cap, which each run's /tmp comes out of too (see
	// DefaultWorkspaceSize). When goSeed names a Go build cache, the
	// workspace's cache starts as a read-only copy of it (see
	// WarmGoCache), so builds need not compile the standard library.
	Workspace(dir string, slot int, goSeed string) error
	// StartCost is how long starting one program takes on an unloaded
	// machine; calibration allows it on top of a scenario's schedule.
	StartCost() time.Duration
	// Close releases what the sandbox holds (a connection to the engine).
	Close() error
}

// env is the environment a sandboxed program gets. goroot is the Go
// installation whose bin folder leads PATH ("" when none); path is the rest
// of PATH.
func env(work, goroot, path string) []string {
	if goroot != "" {
		path = filepath.Join(goroot, "bin") + ":" + path
	}
	return []string{
		"PATH=" + path,
		"LAB_WORK=" + work,
		"HOME=" + work,
		"TMPDIR=" + filepath.Join(work, "tmp"),
		"LANG=C.UTF-8",
		"GOCACHE=" + filepath.Join(work, ".cache", "go-build"),
		"GOPATH=" + filepath.Join(work, "go"),
		"GOTOOLCHAIN=local",
		"GOPROXY=off",
		"GOFLAGS=-buildvcs=false",
		"GOTELEMETRY=off",
		"CGO_ENABLED=0",
	}
}

// goRoot finds the Go installation on this machine: the GOROOT of the go
// command on PATH, or "" when there is none.
func goRoot() string {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	out, err := exec.Command(gobin, "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// RunResult is how a program run to its end (a build step) went.
type RunResult struct {
	Exit proc.Exit
	// Output is what the program wrote to stdout and stderr, interleaved as
	// it came, cut at the cap with a marker saying so.
	Output string
	// TimedOut is set when the program was stopped at the time limit.
	TimedOut bool
	// StartErr is set when the program could not be started at all.
	StartErr error
}

// RunToEnd starts a program with an empty stdin, collects up to maxOutput
// bytes of what it writes, and waits for it to end, stopping it at limit
// (counted from the moment it runs: a slow start on a loaded machine takes
// nothing from it). It is how a build step runs.
func RunToEnd(ctx context.Context, s proc.Starter, limit time.Duration, maxOutput int) RunResult {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := s.Start(ctx)
	if err != nil {
		return RunResult{StartErr: err}
	}
	_ = p.Stdin().Close()
	out := &cappedBuffer{max: maxOutput}
	var readers sync.WaitGroup
	for _, r := range []io.Reader{p.Stdout(), p.Stderr()} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			_, _ = io.Copy(out, r)
		}()
	}
	exited := make(chan proc.Exit, 1)
	go func() { exited <- p.Wait() }()
	var res RunResult
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case res.Exit = <-exited:
	case <-timer.C:
		res.TimedOut = true
		p.Kill()
		res.Exit = <-exited
	case <-ctx.Done():
		p.Kill()
		res.Exit = <-exited
	}
	// Output held open by something the program left behind must not keep
	// the grader waiting: the program's own end is what counts.
	proc.Drain(proc.Done(readers.Wait), 2*time.Second, func() {
		p.Kill()
		if oc, ok := p.(interface{ CloseOutput() }); ok {
			oc.CloseOutput()
		}
	})
	if oc, ok := p.(interface{ CloseOutput() }); ok {
		oc.CloseOutput()
	}
	res.Output = out.String()
	return res
}

// cappedBuffer keeps the first max bytes written to it and counts the rest.
type cappedBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.max - len(b.buf)
	if room >= len(p) {
		b.buf = append(b.buf, p...)
	} else {
		if room > 0 {
			b.buf = append(b.buf, p[:room]...)
		}
		b.dropped += int64(len(p) - max(room, 0))
	}
	return len(p), nil
}

func (b *cappedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(b.buf)
	if b.dropped > 0 {
		s += fmt.Sprintf("\n[... %d more bytes of output cut: only the first %d bytes are kept ...]\n", b.dropped, b.max)
	}
	return s
}

// mkWorkspace creates dir (and its tmp folder, the programs' TMPDIR),
// caps it at size bytes (a tmpfs, when the grader is root; 0 means
// DefaultWorkspaceSize), copies the Go cache seed into it (counted in the
// cap: it cannot be linked across file systems), and gives dir and every
// folder in it to uid:gid (when uid >= 0). Only that user may enter dir.
// Files from the seed stay the grader's and read-only, so no job can
// change what another job's cache holds. Each run's scratch folders are
// made in dir later, one run at a time (see runScratch).
func mkWorkspace(dir string, uid, gid int, goSeed string, size int64) error {
	if size <= 0 {
		size = DefaultWorkspaceSize
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("making the workspace: %w", err)
	}
	if err := mountWorkspace(dir, size, uid, gid); err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return fmt.Errorf("making the workspace: %w", err)
	}
	if goSeed != "" {
		if err := linkTree(goSeed, filepath.Join(dir, ".cache", "go-build")); err != nil {
			return fmt.Errorf("filling the Go build cache of the workspace: %w", err)
		}
	}
	if uid < 0 {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if err := os.Lchown(p, uid, gid); err != nil {
			return fmt.Errorf("handing the workspace to uid %d: %w", uid, err)
		}
		if p == dir {
			return os.Chmod(p, 0o700)
		}
		return os.Chmod(p, 0o755)
	})
}

// nsFailure begins the launcher's error when it could not set up its
// namespaces; the grader then carries on without them.
const nsFailure = "namespaces: "

// job is a spec made ready to run in one sandbox: it starts the program
// and knows the user the program runs as (see jobuser.go).
type job interface {
	Start(ctx context.Context) (proc.Process, error)
	JobUser() (uid, gid int, err error)
	HidesPath(path string) string
}

// specStarter is the Starter each sandbox's Starter returns: a spec, and
// the sandbox's job for a spec. WithArgs and Wrap change the spec alone,
// so both sandboxes treat them the same way.
type specStarter struct {
	spec Spec
	job  func(Spec) job
}

// Start starts the spec's program in its sandbox.
func (s *specStarter) Start(ctx context.Context) (proc.Process, error) {
	return s.job(s.spec).Start(ctx)
}

// JobUser returns the uid and gid the started program runs as, or -1 and
// -1 when it keeps the grader's own user: the grader gives the folders and
// sockets it makes for the job to that user alone.
func (s *specStarter) JobUser() (uid, gid int, err error) { return s.job(s.spec).JobUser() }

// HidesPath says why the started program cannot reach path, which the
// grader can, or "" when it reaches it as the grader does (see
// proc.PathHider): a "could not start" that names a hidden path then says
// so, instead of sending the student to run by hand what works by hand.
func (s *specStarter) HidesPath(path string) string { return s.job(s.spec).HidesPath(path) }

// WithArgs adds arguments after the program's own.
func (s *specStarter) WithArgs(args ...string) proc.Starter {
	spec := s.spec
	spec.Args = append(append([]string(nil), spec.Args...), args...)
	return &specStarter{spec: spec, job: s.job}
}

// WithEnv sets more environment variables for the program (see Spec.Env).
func (s *specStarter) WithEnv(kv ...string) proc.Starter {
	spec := s.spec
	spec.Env = append(append([]string(nil), spec.Env...), kv...)
	return &specStarter{spec: spec, job: s.job}
}

// Wrap runs the program through another command, with visible in sight
// (the container sandbox mounts it read-only at the same path).
func (s *specStarter) Wrap(visible string, before, after []string) proc.Starter {
	return &specStarter{spec: s.spec.wrapped(visible, before, after), job: s.job}
}

// wrapped is spec with its program run through another command: before,
// then the program (made absolute) and its arguments, then after; visible
// joins the folders kept in sight.
func (spec Spec) wrapped(visible string, before, after []string) Spec {
	if len(before) == 0 {
		return spec
	}
	path := spec.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(spec.Dir, path)
	}
	args := append(append([]string(nil), before[1:]...), path)
	args = append(append(args, spec.Args...), after...)
	spec.Path, spec.Args = before[0], args
	if visible != "" {
		spec.Share = append(append([]string(nil), spec.Share...), visible)
	}
	return spec
}
