//go:build windows

package proc

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// groupRoleEnv makes the test binary, started again, play a part of
// TestKillEndsTheJob instead of running tests.
const groupRoleEnv = "LAB_GROUP_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(groupRoleEnv) {
	case "server":
		// A server that starts a child of its own, says the child's pid, then
		// waits for its stdin to close (it never does: Kill ends it).
		self, _ := os.Executable()
		child := exec.Command(self)
		child.Env = append(os.Environ(), groupRoleEnv+"=child")
		if err := child.Start(); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("child " + strconv.Itoa(child.Process.Pid) + "\n")
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "child":
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKillEndsTheJob: Kill ends the server and the child it started, which
// shares its job object; a child outside the job would live on.
func TestKillEndsTheJob(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Command{Path: self, Env: append(os.Environ(), groupRoleEnv+"=server")}.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*localProcess).group.(*jobGroup); !ok {
		t.Fatalf("the server was started as %T, not in a job object", p.(*localProcess).group)
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the child's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "child "))
	if err != nil {
		t.Fatalf("the server said %q, not \"child PID\"", line)
	}
	child, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		t.Fatalf("opening the child %d: %v", pid, err)
	}
	defer windows.CloseHandle(child)
	p.Kill()
	exit := p.Wait()
	if exit.Signal != "killed" {
		t.Errorf("the server's end reads %q, want it killed", exit)
	}
	// A generous deadline: the child ends at once on an idle machine.
	ev, err := windows.WaitForSingleObject(child, uint32((30 * time.Second).Milliseconds()))
	if err != nil || ev != windows.WAIT_OBJECT_0 {
		t.Fatalf("the server's child %d was still running 30s after Kill (wait result %#x, %v)", pid, ev, err)
	}
}
