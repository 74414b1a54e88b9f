// Package clientplay plays a client lesson's scenario: the lab plays the
// servers the scenario names (lab/rig), starts the client under test with
// their configuration, gives it the scenario's commands one at a time,
// closes its stdin and waits for it and its stdio servers to end. It
// returns a plain Record of what happened (the answers, the exit, the
// traffic, the bridge's report), which a grader judges; lab run shows the
// same play as it happens (Player). It imports no grader.
package clientplay

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/rig"
	"github.com/mcplab/mcplab/lab/safefile"
)

// Server is one of the lab's servers as a client scenario's rig plays it.
type Server struct {
	// Stdio serves it on a byte stream until in ends, with the data of the
	// lesson's folder (nil when none); nil for a server that speaks only
	// HTTP.
	Stdio func(ctx context.Context, lesson fs.FS, in io.Reader, out, log io.Writer) error
	// HTTP returns its Streamable HTTP handler for the lesson's folder;
	// nil for a server that speaks only stdio.
	HTTP func(lesson fs.FS) http.Handler
	// Path is its HTTP endpoint, and Addr the address `lab serve NAME`
	// listens on ("" when it picks none).
	Path, Addr string
	// Tools names every tool it offers, over all of its tools/list pages,
	// in its order; nil when that is not known ahead of a run.
	Tools []string
}

// Servers finds the lab's server of a name, or says which there are.
type Servers func(name string) (Server, error)

// Options say how a Launch starts the client and plays its servers.
type Options struct {
	// Relay is the command that starts the lab's relay, through which the
	// client reaches a stdio server; nil means RelayCommand's.
	Relay []string
	// Servers finds the servers a scenario names.
	Servers Servers
	// MaxOutput caps each of the client's streams in each scenario (see
	// stream); 0 means DefaultStreamMax.
	MaxOutput int64
}

// RelayCommand returns the command that starts the lab's relay: the lab
// binary's "relay" subcommand. A stdio server of a client lesson is
// reached through it.
func RelayCommand() ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the lab binary for the relay: %w", err)
	}
	return []string{exe, "relay"}, nil
}

// Launch is how a client under test is started and reaches the servers
// the lab plays: the folder the rigs live in, the relay command their
// configurations name, and how to start the client for one
// configuration. Close removes its folder.
type Launch struct {
	home    string
	relay   []string
	servers Servers
	start   func(config, report string, bridges []rig.BridgePair) proc.Starter
	// owner is the user the client runs as, when a sandbox says (see
	// jobUser): the rig's folders and sockets are its alone.
	owner *rig.Owner
	// bridged: the client runs behind a bridge, which reports on a
	// socket of its own what the client left running.
	bridged   bool
	maxOutput int64
}

// jobUser is a Starter, such as a sandbox's, that knows the user its
// program runs as: uid -1 when it keeps the grader's own.
type jobUser interface {
	JobUser() (uid, gid int, err error)
}

// NewLaunch prepares a client's launch. A plain command is started with
// --config PATH added, and its stdio servers are started through the
// relay. A sandbox's starter (a proc.WrapStarter) gets a relay-only copy
// of the relay's program (see rig.CopyRelayOnly) in a folder of its own,
// which the sandbox shows the client, and runs the client behind a bridge
// (lab relay --bridge), so that the HTTP servers answer at the same
// loopback address inside the sandbox's own network. When the sandbox
// says which user the client runs as, each scenario's folder and sockets
// are given to that user alone (mode 0700), and the launch's folder and
// the relay copy stay root's, which the client may enter and run but not
// list, read or change.
func NewLaunch(starter proc.Starter, opts Options) (*Launch, error) {
	relay := opts.Relay
	if relay == nil {
		var err error
		if relay, err = RelayCommand(); err != nil {
			return nil, err
		}
	}
	if opts.Servers == nil {
		return nil, fmt.Errorf("a client scenario's launch needs the lab's list of servers")
	}
	var owner *rig.Owner
	if ju, ok := starter.(jobUser); ok {
		uid, gid, err := ju.JobUser()
		if err != nil {
			return nil, fmt.Errorf("finding the user the client runs as: %w", err)
		}
		if uid >= 0 {
			owner = &rig.Owner{UID: uid, GID: gid}
		}
	}
	home, err := os.MkdirTemp("", "lab-rig-")
	if err != nil {
		return nil, fmt.Errorf("making the rig's folder: %w", err)
	}
	l := &Launch{home: home, relay: relay, servers: opts.Servers, owner: owner, maxOutput: opts.MaxOutput}
	if w, ok := starter.(proc.WrapStarter); ok {
		if err := l.wrap(w); err != nil {
			l.Close()
			return nil, err
		}
		return l, nil
	}
	a, ok := starter.(proc.ArgStarter)
	if !ok {
		l.Close()
		return nil, fmt.Errorf("a client is started with --config PATH added, and this way of starting programs cannot add arguments")
	}
	l.start = func(config, _ string, _ []rig.BridgePair) proc.Starter { return a.WithArgs("--config", config) }
	return l, nil
}

// wrap starts the client through a sandbox's starter, behind a bridge
// that runs from a relay-only copy in the launch's folder.
func (l *Launch) wrap(w proc.WrapStarter) error {
	if l.owner != nil {
		// The client's user enters it to reach its own folder.
		if err := os.Chmod(l.home, 0o711); err != nil {
			return fmt.Errorf("making the rig's folder: %w", err)
		}
	}
	own := filepath.Join(l.home, "lab")
	if err := copyProgram(l.relay[0], own); err != nil {
		return fmt.Errorf("copying the relay into the rig's folder: %w", err)
	}
	l.relay = append([]string{own}, l.relay[1:]...)
	l.bridged = true
	l.start = func(config, report string, bridges []rig.BridgePair) proc.Starter {
		before := append([]string(nil), l.relay...)
		if report != "" {
			before = append(before, "--report", report)
		}
		for _, b := range bridges {
			before = append(before, "--bridge", b.Addr+"="+b.Socket)
		}
		before = append(before, "--")
		return w.Wrap(l.home, before, []string{"--config", config})
	}
	return nil
}

// Close removes the launch's folder.
func (l *Launch) Close() { os.RemoveAll(l.home) }

// scenarioFolder makes a folder for one scenario's rig in the launch's,
// given to the client's user alone.
func (l *Launch) scenarioFolder() (string, error) {
	dir, err := os.MkdirTemp(l.home, "s")
	if err != nil {
		return "", fmt.Errorf("making the rig's folder: %w", err)
	}
	if l.owner != nil {
		if err := os.Lchown(dir, l.owner.UID, l.owner.GID); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("giving the rig's folder to uid %d: %w", l.owner.UID, err)
		}
	}
	return dir, nil
}

// copyProgram copies the relay's program as a relay-only copy, which its
// user may run but not read (a copy it could read, it could undo): mode
// 0111, never a link to the original.
func copyProgram(from, to string) error {
	return rig.CopyRelayOnly(from, to, 0o111)
}

// rigServers turns a scenario's server lines into servers the rig plays,
// each found by name in the lab's list.
func (l *Launch) rigServers(sc *clientscenario.Scenario, lesson fs.FS, scale float64, tools map[string][]string) ([]rig.Server, error) {
	var out []rig.Server
	for _, s := range sc.Servers {
		ref, err := l.servers(s.Server)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		tools[s.Alias] = ref.Tools
		rs := rig.Server{Alias: s.Alias, Down: s.Down, Hold: s.Hold, Cut: s.Cut, Timeout: Scaled(s.Timeout, scale)}
		switch s.Transport {
		case "http":
			if ref.HTTP == nil {
				return nil, fmt.Errorf("scenario %s: server %s does not speak HTTP", sc.Name, s.Server)
			}
			rs.HTTP, rs.Path = ref.HTTP(lesson), ref.Path
		default:
			if ref.Stdio == nil {
				return nil, fmt.Errorf("scenario %s: server %s does not speak stdio", sc.Name, s.Server)
			}
			serve := ref.Stdio
			rs.Stdio = func(ctx context.Context, in io.Reader, out, log io.Writer) error {
				return serve(ctx, lesson, in, out, log)
			}
		}
		out = append(out, rs)
	}
	return out, nil
}

// Scaled is d at time scale scale (0 means 1).
func Scaled(d time.Duration, scale float64) time.Duration {
	if scale <= 0 {
		scale = 1
	}
	return time.Duration(float64(d) * scale)
}

// writeConfig writes a scenario's configuration, a new file readable by
// the client's user alone.
func writeConfig(path string, data []byte, owner *rig.Owner) error {
	return safefile.CreateNew(path, "the configuration", data, 0o600, func(f *os.File) error {
		if owner == nil {
			return nil
		}
		if err := f.Chown(owner.UID, owner.GID); err != nil {
			return fmt.Errorf("giving the configuration to uid %d: %w", owner.UID, err)
		}
		return nil
	})
}
