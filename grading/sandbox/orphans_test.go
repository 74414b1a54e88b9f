//go:build linux

package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/testkit"
)

// A container left running by a grader that was killed outright (its
// label names a process of this machine that has exited) is removed when
// the next container sandbox starts; one whose grader is alive is kept.
func TestContainerSandboxRemovesOrphans(t *testing.T) {
	testkit.SkipContainerTests(t, "container tests skipped")
	if _, err := exec.LookPath("docker"); err != nil {
		testkit.Unavailable(t, "MCPLAB_REQUIRE_DOCKER=1, but there is no docker command", "no docker command")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		t.Fatal(err)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	label := func(pid int, start string) string {
		return fmt.Sprintf("mcplab.grader=%s/%s/%d/%s", host, strings.TrimSpace(string(boot)), pid, start)
	}
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	start := func(lbl string) string {
		out, err := exec.CommandContext(ctx, "docker", "run", "-d", "--network", "none", "--label", lbl,
			sandbox.DefaultImage, "sleep", "600").Output()
		if err != nil {
			t.Fatalf("docker run: %v", err)
		}
		id := strings.TrimSpace(string(out))
		t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", id).Run() })
		return id
	}
	orphan := start(label(gone.Process.Pid, "1"))
	// pid 1 runs: a label with its start time as /proc gives it names a
	// live grader.
	stat, err := os.ReadFile("/proc/1/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	alive := start(label(1, fields[19]))

	c, err := sandbox.NewContainer(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	running := func(id string) bool {
		return exec.CommandContext(ctx, "docker", "inspect", id).Run() == nil
	}
	if running(orphan) {
		t.Errorf("the container of a grader that exited is still there")
	}
	if !running(alive) {
		t.Errorf("the container of a grader that runs was removed")
	}
}
