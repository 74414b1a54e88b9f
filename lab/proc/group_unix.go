//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// processGroup is the process group a program leads: the program's pid is
// its id.
type processGroup int

// startGroup starts cmd as the leader of a new process group, which its
// children join unless they leave it (setsid).
func startGroup(cmd *exec.Cmd) (group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return processGroup(cmd.Process.Pid), nil
}

// kill sends SIGKILL to the whole group (ESRCH, ignored, once it is empty).
func (g processGroup) kill() { _ = syscall.Kill(-int(g), syscall.SIGKILL) }
