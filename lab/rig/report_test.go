//go:build unix

package rig

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bridgeEnv, when set to a report socket, makes the test binary a bridge
// (lab relay --report SOCKET -- ARGS...) that runs its arguments; forgeEnv
// makes it a client that forges the bridge's report on the socket, then
// leaves a process running.
const (
	bridgeEnv = "RIG_TEST_BRIDGE_REPORT"
	forgeEnv  = "RIG_TEST_FORGE_REPORT"
)

func childBridge(sock string, command []string) int {
	code, err := BridgeReport(context.Background(), nil, sock, command, os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
		return 125
	}
	return code
}

// childForge connects to the report socket and says it left nothing
// running, then starts a process it leaves running.
func childForge(sock string) int {
	if c, err := net.DialTimeout("unix", sock, 5*time.Second); err == nil {
		io.WriteString(c, reportWord+"0\n")
		c.Close()
	}
	if err := exec.Command("sleep", "1000").Start(); err != nil {
		fmt.Fprintln(os.Stderr, "forge:", err)
		return 3
	}
	return 0
}

// reportPatience bounds the waits of these tests for a bridge that does
// its work in milliseconds.
const reportPatience = 20 * time.Second

func listenReport(t *testing.T) *ReportListener {
	t.Helper()
	l, err := ListenReport(filepath.Join(shortDir(t), "report.sock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// The grader takes the first connection alone: a second one, whatever it
// says, is never read.
func TestReportTakesTheFirstConnectionOnly(t *testing.T) {
	l := listenReport(t)
	first, err := net.Dial("unix", l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	<-l.taken
	if second, err := net.Dial("unix", l.Path()); err == nil {
		io.WriteString(second, reportWord+"0\n")
		second.Close()
	}
	io.WriteString(first, reportWord+"3\n")
	first.Close()
	got := l.Wait(context.Background(), reportPatience)
	if want := (Report{Connected: true, Reported: true, LeftRunning: 3}); got != want {
		t.Errorf("report %+v, want %+v", got, want)
	}
}

// What a report connection may carry: alive lines, then one report; any
// other line makes a problem, never a report.
func TestReportLines(t *testing.T) {
	for _, tc := range []struct {
		sent string
		want Report
	}{
		{"", Report{Connected: true}},
		{"alive\nalive\n", Report{Connected: true}},
		{"alive\nleft-running 2\nalive\n", Report{Connected: true, Reported: true, LeftRunning: 2}},
		{"left-running 0\n", Report{Connected: true, Reported: true}},
		{"left-running 1", Report{Connected: true, Problem: `the bridge's report "left-running 1" is not "left-running " and a count and a newline`}},
		{"left-running -1\n", Report{Connected: true, Problem: `the bridge's report "left-running -1\n" is not "left-running " and a count`}},
		{"left-running 0\nleft-running 0\n", Report{Connected: true, Problem: `the bridge sent "left-running 0\n" after its report`}},
		{strings.Repeat("x", 100) + "\n", Report{Connected: true, Problem: "the bridge sent a line longer than 64 bytes"}},
	} {
		l := listenReport(t)
		c, err := net.Dial("unix", l.Path())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, tc.sent)
		c.Close()
		if got := l.Wait(context.Background(), reportPatience); got != tc.want {
			t.Errorf("after %q: report %+v, want %+v", tc.sent, got, tc.want)
		}
	}
}

// startBridge starts the test binary as a bridge reporting to l, running
// command; its stdout is returned to read.
func startBridge(t *testing.T, l *ReportListener, command ...string) (*exec.Cmd, *bufio.Reader, io.WriteCloser) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, command...)
	cmd.Env = append(os.Environ(), bridgeEnv+"="+l.Path())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		pr.Close()
	})
	return cmd, bufio.NewReader(pr), stdin
}

// A running bridge answers the grader's pings, and reports once its
// client has exited.
func TestBridgeAnswersPings(t *testing.T) {
	l := listenReport(t)
	cmd, _, stdin := startBridge(t, l, "cat")
	for i := range 3 {
		if !l.Ping(context.Background(), reportPatience) {
			t.Fatalf("ping %d: no answer from a running bridge", i+1)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bridge: %v", err)
	}
	if got, want := l.Wait(context.Background(), reportPatience), (Report{Connected: true, Reported: true}); got != want {
		t.Errorf("report %+v, want %+v", got, want)
	}
	if !l.Ping(context.Background(), reportPatience) {
		t.Error("a bridge that has reported counts as answered")
	}
}

// A client that kills its bridge leaves the grader a connection that
// ended with no report: the grader can tell (Connected, not Reported).
func TestBridgeKilledByItsClient(t *testing.T) {
	l := listenReport(t)
	cmd, _, _ := startBridge(t, l, "/bin/sh", "-c", "kill -9 $PPID")
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the bridge ended with %v, want SIGKILL", err)
	}
	if got, want := l.Wait(context.Background(), reportPatience), (Report{Connected: true}); got != want {
		t.Errorf("report %+v, want %+v", got, want)
	}
}

// A client that stops its bridge (SIGSTOP) leaves a bridge that answers
// no ping: the grader can tell a silenced watcher from a client that is
// still running.
func TestBridgeStoppedByItsClient(t *testing.T) {
	l := listenReport(t)
	cmd, out, _ := startBridge(t, l, "/bin/sh", "-c", "kill -STOP $PPID && echo stopped")
	if line, err := out.ReadString('\n'); line != "stopped\n" {
		t.Fatalf("the client said %q, %v", line, err)
	}
	// kill(2) returned, so the stop is pending; the group stop itself
	// completes as each of the bridge's threads is next scheduled. The
	// test waits for that to be seen (the kernel's own state, not a
	// guess at how long it takes) before it pings.
	waitStopped(t, cmd.Process.Pid)
	if l.Ping(context.Background(), 2*time.Second) {
		t.Error("a stopped bridge answered a ping")
	}
	cmd.Process.Signal(syscall.SIGCONT)
	if !l.Ping(context.Background(), reportPatience) {
		t.Error("the bridge, running again, did not answer a ping")
	}
}

// waitStopped waits until every thread of pid is stopped (state T).
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(reportPatience)
	for {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		stopped := len(tasks) > 0
		for _, task := range tasks {
			b, err := os.ReadFile(task)
			i := strings.LastIndexByte(string(b), ')')
			if err != nil || i < 0 || !strings.HasPrefix(string(b[i+1:]), " T") {
				stopped = false
			}
		}
		if stopped {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bridge %d was not stopped within %v", pid, reportPatience)
		}
		time.Sleep(time.Millisecond)
	}
}

// A client cannot speak for its bridge: it starts after the bridge has
// connected, so its own connection to the report socket is refused or
// never read, and the grader gets the bridge's count of what the client
// left running.
func TestBridgeReportNotForgedByItsClient(t *testing.T) {
	l := listenReport(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	code, err := BridgeReport(context.Background(), nil, l.Path(), []string{"/usr/bin/env", forgeEnv + "=" + l.Path(), exe}, strings.NewReader(""), io.Discard, &stderr)
	if err != nil || code != 0 {
		t.Fatalf("BridgeReport returned %d, %v; stderr %q", code, err, stderr.String())
	}
	if got, want := l.Wait(context.Background(), reportPatience), (Report{Connected: true, Reported: true, LeftRunning: 1}); got != want {
		t.Errorf("report %+v, want %+v (stderr %q)", got, want, stderr.String())
	}
}
