//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/testkit"
)

// labProcess starts this test binary as the lab, a process of its own (so
// it is the whole process, as a student's lab is), with a deadline far
// longer than the command needs: a hang fails the test, a slow machine
// does not.
func labProcess(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "LAB_TEST_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

// exitCode runs or waits for cmd and returns its exit status; a command
// the deadline killed fails the test.
func exitCode(t *testing.T, err error, errb *bytes.Buffer) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	}
	t.Fatalf("the lab did not end by itself: %v\n%s", err, errb)
	return -1
}

// gone reports whether no process pid exists any more (not even a zombie).
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// killLeft reads the pids a test's server wrote, one a line, to the file
// pids, and kills those still running; it returns the pids written and
// the ones it had to kill.
func killLeft(pids string) (written []string, left []int) {
	b, _ := os.ReadFile(pids)
	written = strings.Fields(string(b))
	for _, f := range written {
		pid, _ := strconv.Atoi(f)
		if !gone(pid) {
			left = append(left, pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return written, left
}

// lab validate and lab capture refuse a FIFO or a device at once, naming
// it; today's code blocked for ever opening the FIFO, deaf to SIGTERM.
func TestValidateAndCaptureRefuseFIFOAndDevice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	testkit.Mkfifo(t, fifo, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", fifo}, "lab validate: " + fifo + " is a named pipe (FIFO), not a regular file or a folder"},
		{[]string{"validate", "/dev/zero"}, "lab validate: /dev/zero is a character device, not a regular file or a folder"},
		{[]string{"capture", filepath.Join(dir, "s"), fifo, "--", "cat"}, "lab capture: " + fifo + " is a named pipe (FIFO), not a regular file"},
		{[]string{"capture", filepath.Join(dir, "s"), "/dev/zero", "--", "cat"}, "lab capture: /dev/zero is a character device, not a regular file"},
	} {
		cmd, _, errb := labProcess(t, tc.args...)
		if code := exitCode(t, cmd.Run(), errb); code != 2 || !strings.HasPrefix(errb.String(), tc.want) {
			t.Errorf("lab %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errb, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s.md")); err == nil {
		t.Error("capture wrote OUT.md from a FIFO")
	}
}

// SIGTERM ends a capture whose server never answers (its wait is an
// hour): the lab exits, the server is ended with it, nothing is written.
func TestCaptureEndsOnSIGTERM(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			ready := filepath.Join(dir, "ready")
			testkit.Mkfifo(t, ready, 0o600)
			in := filepath.Join(dir, "in.jsonl")
			os.WriteFile(in, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"), 0o644)
			out := filepath.Join(dir, "s")
			cmd, _, errb := labProcess(t, "capture", "-wait", "1h", out, in, "--",
				"sh", "-c", `read line; echo $$ > "$1"; exec sleep 3600`, "sh", ready)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The server writes its pid once it has the request: then the
			// lab is waiting for an answer that never comes.
			f, err := os.Open(ready)
			if err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(f).ReadString('\n')
			f.Close()
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatalf("the server's pid: %q", line)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			cmd.Process.Signal(sig)
			code := exitCode(t, cmd.Wait(), errb)
			if code != 2 || errb.String() != "lab capture: interrupted: the server was ended and nothing was written\n" {
				t.Errorf("exit %d, stderr %q", code, errb)
			}
			if !gone(pid) {
				t.Errorf("the server (pid %d) outlived lab capture", pid)
			}
			for _, name := range []string{out + ".jsonl", out + ".md"} {
				if _, err := os.Stat(name); err == nil {
					t.Errorf("%s was written", name)
				}
			}
		})
	}
}

// A server that starts `setsid sleep` holding its output, and a plain
// background sleep: capture returns after its own wait, not the daemon's,
// and neither process outlives it. Today's code waited for the daemon.
func TestCaptureEndsSetsidDaemon(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pid")
	testkit.Mkfifo(t, fifo, 0o600)
	pids := filepath.Join(dir, "pids")
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"), 0o644)
	out := filepath.Join(dir, "s")
	script := `sleep 3600 & echo $! >> "$2"
setsid sh -c 'echo $$ > "$1"; exec sleep 3600' sh "$1" &
read pid < "$1"; echo $pid >> "$2"; cat >/dev/null`
	cmd, _, errb := labProcess(t, "capture", "-wait", "1s", out, in, "--", "sh", "-c", script, "sh", fifo, pids)
	code := exitCode(t, cmd.Run(), errb)
	written, left := killLeft(pids)
	if len(written) != 2 || len(left) > 0 {
		t.Errorf("pids %q; still running after lab capture returned: %v", written, left)
	}
	wantErr := "lab capture: ended 1 process the server had left running outside its process group " +
		"(a daemon started with setsid, or its children); a server must end what it starts\n" +
		"lab capture: 4 records in " + out + ".jsonl and " + out + ".md; the server exited with status 0\n"
	if code != 0 || errb.String() != wantErr {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", code, errb, wantErr)
	}
	md, _ := os.ReadFile(out + ".md")
	if !strings.Contains(string(md), "something the server started still held its output open 1s after it ended") {
		t.Errorf("OUT.md does not say why it stopped reading:\n%s", md)
	}
}

// lab grade with no sandbox: what each server left running, in its group
// or out of it (setsid), is ended by the time lab grade returns.
func TestGradeEndsWhatTheServerLeft(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	exe, _ := os.Executable()
	script := `f=$(mktemp -u "$1/f.XXXXXX"); mkfifo "$f"
sleep 3600 & echo $! >> "$1/pids"
setsid sh -c 'echo $$ > "$1"; exec sleep 3600' sh "$f" </dev/null >/dev/null 2>&1 &
read pid < "$f"; echo $pid >> "$1/pids"; rm -f "$f"
LAB_TEST_MAIN=1 exec "$2" serve reader`
	cmd, out, errb := labProcess(t, "grade", "--lesson", "1", "--", "sh", "-c", script, "sh", dir, exe)
	code := exitCode(t, cmd.Run(), errb)
	written, left := killLeft(pids)
	n := len(written)
	if n < 2 || n%2 != 0 || len(left) > 0 {
		t.Errorf("%d pids written; still running after lab grade returned: %v", n, left)
	}
	wantErr := "lab grade: ended " + grading.CountOf(n/2, "process", "processes") + " the server had left running outside its process group"
	// The verdicts are the grader's business; what matters here is that the
	// server was graded (0 or 1, not 2) and what it left was ended.
	if code == exitCannot || code > exitFailed || !strings.Contains(errb.String(), wantErr) {
		t.Errorf("exit %d, want 0 or 1 and %q on stderr\n%s%s", code, wantErr, out, errb)
	}
}

// OUT.jsonl a link (to a file of root's, say) is refused before the
// server starts; the target is untouched.
func TestCaptureRefusesLinkedOut(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o600)
	out := filepath.Join(dir, "s")
	os.Symlink(victim, out+".jsonl")
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"), 0o644)
	started := filepath.Join(dir, "started")
	code, _, errOut := lab(t, "capture", out, in, "--", "sh", "-c", `touch "$1"; cat`, "sh", started)
	want := "lab capture: " + out + ".jsonl already exists and is a symbolic link; lab capture replaces only a regular file of its own user"
	if code != 2 || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if _, err := os.Stat(started); err == nil {
		t.Error("the server was started although OUT could not be written")
	}
	if _, err := os.Lstat(out + ".md"); err == nil {
		t.Error("OUT.md was written although OUT.jsonl could not be")
	}
}

// Control characters in a file name, and in what a line of it holds, are
// shown as escapes in lab validate's output.
func TestValidateEscapesControls(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bad\x1b[2J\x07.jsonl")
	os.WriteFile(name, []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":5}}\n"), 0o644)
	code, out, _ := lab(t, "validate", name)
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw control characters in the output: %q", out)
	}
	want := "FAIL  " + dir + "/bad\\x1b[2J\\x07.jsonl (wire file, 1 message)\n"
	if code != 1 || !strings.HasPrefix(out, want) {
		t.Errorf("exit %d, output %q; want it to begin %q", code, out, want)
	}
	code, _, errOut := lab(t, "validate", filepath.Join(dir, "no\x1bsuch.jsonl"))
	if code != 2 || strings.Contains(errOut, "\x1b") || !strings.Contains(errOut, "no\\x1bsuch.jsonl") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
