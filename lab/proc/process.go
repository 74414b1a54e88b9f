package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Process is a running server under test: its three streams, and its end.
type Process interface {
	// Stdin is the server's input. Closing it is how a client says it is done.
	Stdin() io.WriteCloser
	// Stdout and Stderr are the server's output streams. They end when the
	// server (and everything it started) has closed them.
	Stdout() io.Reader
	Stderr() io.Reader
	// Wait blocks until the server has ended and says how.
	Wait() Exit
	// Kill stops the server and everything it started, at once. It is safe
	// to call more than once and after the server ended.
	Kill()
}

// Starter starts a server. Sandboxes are Starters.
type Starter interface {
	Start(ctx context.Context) (Process, error)
}

// ArgStarter is a Starter that can start its program with more arguments:
// a client under test gets the path of its configuration that way.
type ArgStarter interface {
	Starter
	WithArgs(args ...string) Starter
}

// WrapStarter is a Starter, such as a sandbox's, that can start its program
// through another command: before, then the program and its arguments,
// then after. The folder visible must be in sight of the program (a
// sandbox that hides the machine's files shows it, read-only).
type WrapStarter interface {
	Starter
	Wrap(visible string, before, after []string) Starter
}

// PathHider is a Starter, such as a sandbox's, whose program sees less of
// the machine than the one starting it does. HidesPath says, as a clause
// ("it lies in /tmp, and ..."), why the program cannot reach path, or ""
// when it reaches path as the caller would: a program that could not start
// because a file it names is hidden is then told why, and what to do.
type PathHider interface {
	Starter
	HidesPath(path string) string
}

// Exit says how a process ended.
type Exit struct {
	Code   int    // the exit status, or -1 when a signal ended it
	Signal string // the signal's name when one ended it, such as "killed"
	// Err is set when the end could not be observed (a wait that failed).
	Err error
	// Reason, when set, says in words why a sandbox ended the process
	// (for example "killed for using more than 256 MiB of memory").
	Reason string
}

// OK reports whether the process exited by itself with status 0.
func (e Exit) OK() bool { return e.Err == nil && e.Signal == "" && e.Code == 0 }

// ByItself reports whether the process ended by itself, with a status of
// its own, and not by a signal or a sandbox. A process that is killed after
// it has already ended keeps its own status, so for a kill sent at a
// deadline, ByItself tells that the process had ended before the kill
// reached it: its end was only reported late (a container engine under
// load tells of an exit seconds after it happened).
func (e Exit) ByItself() bool { return e.Err == nil && e.Signal == "" && e.Reason == "" }

func (e Exit) String() string {
	switch {
	case e.Reason != "":
		return e.Reason
	case e.Err != nil:
		return "ended, but its status could not be read: " + e.Err.Error()
	case e.Signal != "":
		return "was ended by signal " + e.Signal
	}
	return fmt.Sprintf("exited with status %d", e.Code)
}

// Command starts a local program as a server, in its own process group so
// that Kill ends everything it started too.
type Command struct {
	Path string
	Args []string
	Dir  string
	// Env is the environment; nil means the lab's own.
	Env []string
	// EndGroup, when set, ends the program's whole process group once the
	// program has ended by itself, so nothing it left running in the
	// group (a background "sleep &") outlives it. On Linux the group is
	// killed while the program is still a zombie, so its id cannot have
	// been reused; elsewhere just after it is reaped. Kill ends the group
	// whether or not this is set.
	EndGroup bool
}

// WithArgs returns the command with args added after its own.
func (c Command) WithArgs(args ...string) Starter {
	c.Args = append(append([]string(nil), c.Args...), args...)
	return c
}

// execPath is the file the program's exec names, or "" for a bare name
// (looked up in PATH).
func (c Command) execPath() string {
	switch {
	case !strings.ContainsRune(c.Path, '/') && !strings.ContainsRune(c.Path, filepath.Separator):
		return ""
	case filepath.IsAbs(c.Path) || c.Dir == "":
		return c.Path
	}
	return filepath.Join(c.Dir, c.Path)
}

// Start starts the program.
func (c Command) Start(ctx context.Context) (Process, error) {
	if c.Path == "" {
		return nil, errors.New("no command to start")
	}
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	inR, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", c.Path, err)
	}
	cmd.Stdin = inR
	closers := []io.Closer{inR}
	// Pipes from os.Pipe, not cmd.StdoutPipe: Wait must not close the read
	// ends while the grader is still reading what the server wrote last.
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		stdin.Close()
		return nil, fmt.Errorf("starting %s: %w", c.Path, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		for _, f := range []io.Closer{inR, stdin, outR, outW} {
			f.Close()
		}
		return nil, fmt.Errorf("starting %s: %w", c.Path, err)
	}
	closers = append(closers, outW, errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	p := &localProcess{Ends: NewEnds(stdin, outR, errR), cmd: cmd}
	g, err := startGroup(cmd)
	if err != nil {
		for _, f := range []io.Closer{inR, outR, outW, errR, errW, stdin} {
			f.Close()
		}
		return nil, fmt.Errorf("starting %s: %w", c.Path, ExecError(c.execPath(), err))
	}
	p.group = g
	for _, w := range closers {
		w.Close() // the child holds its own copies
	}
	go func() {
		if c.EndGroup {
			endGroupOnExit(cmd.Process.Pid)
		}
		err := cmd.Wait()
		exit := exitOf(cmd.ProcessState, err)
		if k, ok := g.(interface{ killedExit(Exit) Exit }); ok {
			exit = k.killedExit(exit) // a job object's end, said as a signal would say it
		}
		if c.EndGroup {
			g.kill() // elsewhere than Linux; nothing to do when the group is empty
		}
		p.End(exit)
	}()
	KillOnCancel(ctx, p.Done(), p.Kill)
	return p, nil
}

type localProcess struct {
	*Ends[*os.File, *os.File]
	cmd      *exec.Cmd
	group    group
	killOnce sync.Once
}

// StdinBacklog says how many bytes sent to the server it has not read yet.
func (p *localProcess) StdinBacklog() (int, error) { return PipeBacklog(p.In) }

// Kill ends the whole process group (on Windows, the job object). A
// grandchild that left the group (setsid) may still hold the output pipes:
// CloseOutput releases them.
func (p *localProcess) Kill() {
	p.killOnce.Do(func() {
		if p.group != nil {
			p.group.kill()
		}
	})
}

// CloseOutput releases the output pipes. Play calls it once it has read
// what it wants, so a process that left a grandchild holding the pipes open
// cannot keep the grader waiting.
func (p *localProcess) CloseOutput() {
	p.Out.Close()
	p.ErrOut.Close()
}

func exitOf(st *os.ProcessState, err error) Exit {
	s := StatusOf(st, err)
	return Exit{Code: s.Code, Signal: s.Signal, Err: s.Err}
}

// OutputCloser is a Process that can release its output streams early.
type OutputCloser interface{ CloseOutput() }

// StdinBacklogger is a Process that can tell how much of what was written to
// its stdin it has not read yet. The client uses it to let the server read
// one chunk before it sends the next, so a chunk boundary in the schedule is
// a boundary between the server's reads whatever the load on the machine.
type StdinBacklogger interface {
	StdinBacklog() (int, error)
}
