//go:build !unix && !windows

package proc

import "os/exec"

// processOnly is a started program on a system with neither process groups
// nor job objects: only the program itself can be ended.
type processOnly struct{ cmd *exec.Cmd }

// startGroup starts cmd alone.
func startGroup(cmd *exec.Cmd) (group, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return processOnly{cmd}, nil
}

// kill ends the program (its children, if any, are not reached here).
func (g processOnly) kill() { _ = g.cmd.Process.Kill() }
