package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/moby/moby/client"
)

// graderLabel names, on each container, the grader process that made it
// (see graderID): a grader killed outright (SIGKILL, the machine's OOM
// killer, a test binary's timeout) runs no Close, and its containers would
// run on, a hung student's for ever. The next container sandbox on the
// same machine removes them (removeOrphans).
const graderLabel = "mcplab.grader"

// graderID identifies this process on this machine for as long as it
// lives: the host name, the kernel's boot id, the pid and the pid's start
// time (so a pid the kernel gives again later is another process). It is
// "" when /proc cannot say.
func graderID() string {
	return processID(os.Getpid())
}

// processID is graderID for the process pid, "" when it does not run.
func processID(pid int) string {
	host, err := os.Hostname()
	if err != nil {
		return ""
	}
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	start, ok := startTime(pid)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s/%s/%d/%s", host, strings.TrimSpace(string(boot)), pid, start)
}

// startTime is field 22 of /proc/PID/stat, the process's start time in
// clock ticks since boot.
func startTime(pid int) (string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", false
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		return "", false
	}
	return fields[19], true
}

// orphaned reports whether a container labelled id was made by a grader of
// this machine that no longer runs (mine is this grader's graderID): the same host name, and another boot or
// a pid that is gone or is now another process. A container of a grader on
// another machine (a shared remote engine), or with no such label, is left
// alone.
func orphaned(id, mine string) bool {
	if id == "" || mine == "" || id == mine {
		return false
	}
	parts := strings.Split(id, "/")
	own := strings.Split(mine, "/")
	if len(parts) != 4 || parts[0] != own[0] {
		return false
	}
	if parts[1] != own[1] {
		return true // the machine was started again since
	}
	pid, err := strconv.Atoi(parts[2])
	if err != nil {
		return false
	}
	return processID(pid) != id
}

// removeOrphans removes the containers of graders that were killed before
// they could remove their own (see graderLabel), and says how many it
// removed (see Container.note). Failing to list them is not an error of the new
// sandbox's: it only means none are removed.
func (c *Container) removeOrphans(ctx context.Context) {
	list, err := c.cli.ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: client.Filters{}.Add("label", graderLabel)})
	if err != nil {
		return
	}
	removed := 0
	for _, ctr := range list.Items {
		if orphaned(ctr.Labels[graderLabel], c.grader) {
			c.remove(ctr.ID)
			removed++
		}
	}
	if removed > 0 {
		c.note(fmt.Sprintf("container sandbox: removed %d container(s) left running by a grader that was killed before it could remove them", removed))
	}
}
