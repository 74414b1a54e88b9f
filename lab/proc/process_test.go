//go:build unix

package proc_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/proc"
)

// readWithin reads r to its end, failing the test if that has not happened
// by the deadline (far longer than it needs: a hang, not a slow machine).
func readWithin(t *testing.T, r io.Reader, d time.Duration) string {
	t.Helper()
	done := make(chan string, 1)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	select {
	case s := <-done:
		return s
	case <-time.After(d):
		t.Fatalf("the output was still open after %s", d)
		return ""
	}
}

// firstLine reads one line of r: the pid a script prints.
func firstPid(t *testing.T, br *bufio.Reader) int {
	t.Helper()
	line, err := br.ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("reading a pid: %q, %v", line, err)
	}
	return pid
}

// With EndGroup, a background process left in the program's group is
// ended when the program ends: the stderr it held closes. Without it, as
// before, it runs on until Kill.
func TestProcessEndGroup(t *testing.T) {
	script := `sleep 3600 & echo $! >&2; exit 0`
	p, err := proc.Command{Path: "sh", Args: []string{"-c", script}, EndGroup: true}.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(p.Stderr())
	pid := firstPid(t, br)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if exit := p.Wait(); !exit.OK() {
		t.Errorf("exit %v", exit)
	}
	readWithin(t, br, 60*time.Second) // the sleep is dead: it held stderr

	q, err := proc.Command{Path: "sh", Args: []string{"-c", script}}.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	br = bufio.NewReader(q.Stderr())
	pid = firstPid(t, br)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	q.Wait()
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("without EndGroup the background process was ended too: %v", err)
	}
	q.Kill()
	readWithin(t, br, 60*time.Second)
}

// AdoptOrphans and KillAll, in a process of their own (a subreaper holds
// for the whole process): a daemon that left the group with setsid, its
// parent gone, is ended and reaped before KillAll returns, and counted; a
// process of the server's group that a kill has already reached is reaped
// but not counted as left running.
func TestProcessOrphansKilled(t *testing.T) {
	if os.Getenv("LAB_CLIENT_ORPHANS") == "1" {
		orphansHelper()
		return
	}
	exe, _ := os.Executable()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestProcessOrphansKilled$")
	cmd.Env = append(os.Environ(), "LAB_CLIENT_ORPHANS=1")
	out, err := cmd.Output()
	fields := strings.Fields(string(out))
	if err != nil || len(fields) < 2 || fields[1] != "1" {
		t.Fatalf("helper: %v, output %q", err, out)
	}
	pid, _ := strconv.Atoi(fields[0])
	if !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the daemon %d outlived KillAll", pid)
	}
}

// orphansHelper prints the daemon's pid and how many KillAll ended.
func orphansHelper() {
	o, err := proc.AdoptOrphans()
	if err != nil {
		os.Exit(3)
	}
	script := `setsid sh -c 'echo daemon $$; exec sleep 3600' </dev/null 2>/dev/null &
sleep 3600 </dev/null 2>/dev/null & echo grouped $!`
	p, err := proc.Command{Path: "sh", Args: []string{"-c", script}}.Start(context.Background())
	if err != nil {
		os.Exit(3)
	}
	br := bufio.NewReader(p.Stdout())
	pids := map[string]string{}
	for range 2 {
		line, _ := br.ReadString('\n')
		if who, pid, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			pids[who] = pid
		}
	}
	p.Wait()
	// As a server's group kill does: the signal is sent, nobody waits.
	if pid, err := strconv.Atoi(pids["grouped"]); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	line := pids["daemon"]
	n, err := o.KillAll(context.Background())
	if err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString(strings.TrimSpace(line) + " " + strconv.Itoa(n) + "\n")
	os.Exit(0)
}
