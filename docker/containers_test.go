package docker_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// maxLines bounds how many lines one stream of a process under test may
// write before the test gives up on it.
const maxLines = 10000

// lineSink collects one output stream of a process: every byte, and each
// complete line on a channel as it arrives, so a test can wait for a line
// instead of sleeping.
type lineSink struct {
	mu      sync.Mutex
	all     bytes.Buffer
	pending []byte
	done    bool
	lines   chan string
}

func newLineSink() *lineSink { return &lineSink{lines: make(chan string, maxLines)} }

// Write implements io.Writer.
func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return 0, errors.New("write after the end of the stream")
	}
	s.all.Write(p)
	s.pending = append(s.pending, p...)
	for {
		i := bytes.IndexByte(s.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(s.pending[:i])
		s.pending = s.pending[i+1:]
		select {
		case s.lines <- line:
		default:
			return 0, fmt.Errorf("more than %d lines on one stream", maxLines)
		}
	}
}

// finish marks the end of the stream; a last line without a newline is
// delivered as a line.
func (s *lineSink) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	s.done = true
	if len(s.pending) > 0 {
		select {
		case s.lines <- string(s.pending):
		default:
		}
		s.pending = nil
	}
	close(s.lines)
}

// String returns everything written so far.
func (s *lineSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all.String()
}

// next returns the next line; io.EOF once the stream has ended and every
// line was read.
func (s *lineSink) next(ctx context.Context) (string, error) {
	select {
	case line, ok := <-s.lines:
		if !ok {
			return "", io.EOF
		}
		return line, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// stdioProc is a running lab process, on this machine or in a container,
// with its stdin open (or not) and its two output streams collected.
type stdioProc struct {
	name           string // for messages: "local" or "container <id>"
	stdin          io.Writer
	closeStdin     func() error
	stdout, stderr *lineSink
	// exited is closed when both output streams have ended.
	exited chan struct{}
	// exitCode waits for the process to end and returns its exit status.
	exitCode func(ctx context.Context) (int, error)
}

// logs is what the process wrote so far, for error messages.
func (p *stdioProc) logs() string {
	return fmt.Sprintf("stdout:\n%s\nstderr:\n%s", indent(p.stdout.String()), indent(p.stderr.String()))
}

func indent(s string) string {
	if s == "" {
		return "    (nothing)"
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// waitReady reads stderr until a line equal to marker arrives. If the
// process ends first, or ctx ends, the error says so and carries the logs.
func (p *stdioProc) waitReady(ctx context.Context, marker string) error {
	for {
		line, err := p.stderr.next(ctx)
		if err == nil && line == marker {
			return nil
		}
		if errors.Is(err, io.EOF) {
			code, werr := p.exitCode(ctx)
			if werr != nil {
				return fmt.Errorf("%s: the output ended before %q, and its exit status is unknown (%v)\n%s", p.name, marker, werr, p.logs())
			}
			return fmt.Errorf("%s exited with status %d before it printed %q on stderr\n%s", p.name, code, marker, p.logs())
		}
		if err != nil {
			return fmt.Errorf("%s did not print %q on stderr: %w\n%s", p.name, marker, err, p.logs())
		}
	}
}

// finish closes stdin, reads stdout to its end and waits for the exit
// status. A status other than 0 is an error with the logs.
func (p *stdioProc) finish(ctx context.Context) error {
	if p.closeStdin != nil {
		if err := p.closeStdin(); err != nil {
			return fmt.Errorf("%s: close stdin: %w", p.name, err)
		}
	}
	select {
	case <-p.exited:
	case <-ctx.Done():
		return fmt.Errorf("%s did not end its output: %w\n%s", p.name, ctx.Err(), p.logs())
	}
	code, err := p.exitCode(ctx)
	if err != nil {
		return fmt.Errorf("%s: exit status: %w\n%s", p.name, err, p.logs())
	}
	if code != 0 {
		return fmt.Errorf("%s exited with status %d\n%s", p.name, code, p.logs())
	}
	return nil
}

// startLocal starts the lab binary on this machine with a stdin pipe.
func startLocal(ctx context.Context, bin string, args ...string) (*stdioProc, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	p := &stdioProc{
		name: "local lab " + strings.Join(args, " "), stdin: stdin, closeStdin: stdin.Close,
		stdout: newLineSink(), stderr: newLineSink(), exited: make(chan struct{}),
	}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		p.stdout.finish()
		p.stderr.finish()
		close(p.exited)
	}()
	p.exitCode = func(ctx context.Context) (int, error) {
		select {
		case <-p.exited:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		var exit *exec.ExitError
		if waitErr != nil && !errors.As(waitErr, &exit) {
			return 0, waitErr
		}
		return cmd.ProcessState.ExitCode(), nil
	}
	return p, nil
}

// engine is the Docker engine the tests talk to, and the image they run.
type engine struct {
	cli   *testcontainers.DockerClient
	image string
}

// containerOpts says how startContainer runs the image.
type containerOpts struct {
	stdin bool     // keep stdin open and attached
	env   []string // KEY=VALUE
	args  []string // arguments after the image's entrypoint (/lab in the lab image)
	// host, when set, changes the host settings after startContainer's
	// own (no network): mounts, capabilities.
	host func(*container.HostConfig)
}

// startContainer creates a container of the image with no network, attaches
// to its streams before it starts (so nothing is lost) and starts it. The
// container is removed when the test ends.
func (e *engine) startContainer(ctx context.Context, t testing.TB, o containerOpts) (*stdioProc, error) {
	t.Helper()
	ctr, err := testcontainers.Run(ctx, e.image,
		testcontainers.WithLogger(tclog.TestLogger(t)),
		testcontainers.WithNoStart(),
		testcontainers.WithCmd(o.args...),
		testcontainers.WithConfigModifier(func(c *container.Config) {
			c.Env = append(c.Env, o.env...)
			c.AttachStdout, c.AttachStderr = true, true
			c.OpenStdin, c.StdinOnce, c.AttachStdin = o.stdin, o.stdin, o.stdin
		}),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.NetworkMode = "none"
			if o.host != nil {
				o.host(hc)
			}
		}),
	)
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		return nil, fmt.Errorf("create a container of %s: %w", e.image, err)
	}
	id := ctr.GetContainerID()
	att, err := e.cli.ContainerAttach(ctx, id, client.ContainerAttachOptions{
		Stream: true, Stdin: o.stdin, Stdout: true, Stderr: true,
	})
	if err != nil {
		return nil, fmt.Errorf("attach to container %s: %w", id, err)
	}
	t.Cleanup(att.Close)
	p := &stdioProc{
		name:   fmt.Sprintf("container %.12s of %s (%s)", id, e.image, strings.Join(o.args, " ")),
		stdout: newLineSink(), stderr: newLineSink(), exited: make(chan struct{}),
	}
	if o.stdin {
		p.stdin, p.closeStdin = att.Conn, att.CloseWrite
	}
	go func() {
		// No TTY: the attach stream multiplexes stdout and stderr.
		_, _ = stdcopy.StdCopy(p.stdout, p.stderr, att.Reader)
		p.stdout.finish()
		p.stderr.finish()
		close(p.exited)
	}()
	p.exitCode = func(ctx context.Context) (int, error) {
		w := e.cli.ContainerWait(ctx, id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
		select {
		case r := <-w.Result:
			if r.Error != nil && r.Error.Message != "" {
				return int(r.StatusCode), fmt.Errorf("wait for container %.12s: %s", id, r.Error.Message)
			}
			return int(r.StatusCode), nil
		case err := <-w.Error:
			return 0, fmt.Errorf("wait for container %.12s: %w", id, err)
		}
	}
	if err := ctr.Start(ctx); err != nil {
		return nil, fmt.Errorf("start container %.12s: %w\n%s", id, err, p.logs())
	}
	return p, nil
}

// runContainer runs the image once with args and no stdin, and returns what
// it printed. An exit status other than 0 is an error carrying the logs.
func (e *engine) runContainer(ctx context.Context, t testing.TB, env []string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	p, err := e.startContainer(ctx, t, containerOpts{env: env, args: args})
	if err != nil {
		return "", "", err
	}
	err = p.finish(ctx)
	return p.stdout.String(), p.stderr.String(), err
}

// runResult is what a command run to its end in a container did.
type runResult struct {
	stdout, stderr string
	code           int
}

// run runs the image once with o (no stdin) and returns what the command
// printed and its exit status, whatever that is; the error is for a
// container that could not be run or did not end before ctx.
func (e *engine) run(ctx context.Context, t testing.TB, o containerOpts) (runResult, error) {
	t.Helper()
	o.stdin = false
	p, err := e.startContainer(ctx, t, o)
	if err != nil {
		return runResult{}, err
	}
	select {
	case <-p.exited:
	case <-ctx.Done():
		return runResult{}, fmt.Errorf("%s did not end: %w\n%s", p.name, ctx.Err(), p.logs())
	}
	code, err := p.exitCode(ctx)
	if err != nil {
		return runResult{}, fmt.Errorf("%s: exit status: %w\n%s", p.name, err, p.logs())
	}
	return runResult{stdout: p.stdout.String(), stderr: p.stderr.String(), code: code}, nil
}
