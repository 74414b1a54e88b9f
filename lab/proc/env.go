package proc

import (
	"errors"
	"os"
	"syscall"
)

// EnvStarter is a Starter that can start its program with more
// environment variables: a server that listens on a port it is told (an
// HTTP lesson's PORT) gets it that way.
type EnvStarter interface {
	Starter
	WithEnv(kv ...string) Starter
}

// WithEnv returns the command with the variables kv ("NAME=value") set
// on top of its environment (the lab's own when Env is nil).
func (c Command) WithEnv(kv ...string) Starter {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	c.Env = append(append([]string(nil), env...), kv...)
	return c
}

// Terminator is a Process that can be asked to stop, as a service
// manager asks: SIGTERM to the program itself (not its group), which a
// well-behaved server answers by finishing what is in flight and exiting.
type Terminator interface {
	Terminate() error
}

// Terminate sends the program SIGTERM. Where the system has no SIGTERM
// (Windows) it says so and sends nothing.
func (p *localProcess) Terminate() error {
	if p.cmd.Process == nil {
		return errors.New("the program is not running")
	}
	return p.cmd.Process.Signal(syscall.SIGTERM)
}
