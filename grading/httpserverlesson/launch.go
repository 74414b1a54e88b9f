package httpserverlesson

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/rig"
	"github.com/mcplab/mcplab/lab/tunnel"
)

// launch is how the copies of a student's server are started and
// reached. A plain command is started with PORT in its environment and
// reached over TCP on 127.0.0.1:PORT. A sandbox's starter (a
// proc.WrapStarter) runs the server in a network of its own, where the
// grader's TCP cannot go: the server is started behind a bridge (lab relay
// --tunnel), run from a relay-only copy of the lab in a folder of the
// launch's, and reached through a tunnel whose socket the grader makes
// there (see lab/tunnel), given to the user the program runs as.
type launch struct {
	starter proc.Starter
	// home is the launch's folder (sandboxed only): the relay copy and
	// every tunnel's socket; "" for a plain command.
	home  string
	relay []string
	// uid, gid is the program's user, when the sandbox says (-1 else).
	uid, gid int
}

// newLaunch prepares the launch of starter's program; relay is the lab's
// relay command, used when starter is a sandbox's (nil: this binary's).
func newLaunch(starter proc.Starter, relay []string) (*launch, error) {
	l := &launch{starter: starter, uid: -1, gid: -1}
	if _, ok := starter.(proc.WrapStarter); !ok {
		return l, nil
	}
	if relay == nil {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the lab binary for the bridge: %w", err)
		}
		relay = []string{exe, "relay"}
	}
	if ju, ok := starter.(interface{ JobUser() (int, int, error) }); ok {
		uid, gid, err := ju.JobUser()
		if err != nil {
			return nil, fmt.Errorf("finding the user the server runs as: %w", err)
		}
		l.uid, l.gid = uid, gid
	}
	home, err := os.MkdirTemp("", "lab-http-")
	if err != nil {
		return nil, fmt.Errorf("making the bridge's folder: %w", err)
	}
	l.home = home
	if l.uid >= 0 {
		// The server's user enters the folder to reach its socket and
		// run the relay, but may not list or change it.
		if err := os.Chmod(home, 0o711); err != nil {
			l.close()
			return nil, fmt.Errorf("making the bridge's folder: %w", err)
		}
	}
	own := filepath.Join(home, "lab")
	if err := rig.CopyRelayOnly(relay[0], own, 0o111); err != nil {
		l.close()
		return nil, fmt.Errorf("copying the relay into the bridge's folder: %w", err)
	}
	l.relay = append([]string{own}, relay[1:]...)
	return l, nil
}

// close removes the launch's folder.
func (l *launch) close() {
	if l.home != "" {
		os.RemoveAll(l.home)
	}
}

// started is a copy as it was started: the process, how to reach it, and
// what to let go of when it has ended.
type started struct {
	p    proc.Process
	dial func(ctx context.Context) (net.Conn, error)
	// close lets go of the tunnel, if any.
	close func()
}

// start starts copy name of the server, told to listen on port.
func (l *launch) start(ctx context.Context, name string, port int) (*started, error) {
	env := "PORT=" + strconv.Itoa(port)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if l.home == "" {
		es, ok := l.starter.(proc.EnvStarter)
		if !ok {
			return nil, &startError{why: "the lab cannot tell this program which port to listen on: it starts it in a way that takes no environment variables"}
		}
		p, err := es.WithEnv(env).Start(ctx)
		if err != nil {
			return nil, &startError{why: "the server could not be started: " + err.Error()}
		}
		var d net.Dialer
		return &started{p: p, dial: func(ctx context.Context) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }, close: func() {}}, nil
	}
	sock := filepath.Join(l.home, fmt.Sprintf("%s-%d.sock", name, port))
	tl, err := tunnel.Listen(sock)
	if err != nil {
		return nil, err
	}
	if err := tl.Chown(l.uid, l.gid); err != nil {
		tl.Close()
		return nil, err
	}
	before := append(append([]string(nil), l.relay...), "--tunnel", sock+"="+addr, "--")
	wrapped := l.starter.(proc.WrapStarter).Wrap(l.home, before, nil)
	es, ok := wrapped.(proc.EnvStarter)
	if !ok {
		tl.Close()
		return nil, &startError{why: "the lab cannot tell this program which port to listen on: the sandbox takes no environment variables"}
	}
	p, err := es.WithEnv(env).Start(ctx)
	if err != nil {
		tl.Close()
		return nil, &startError{why: "the server could not be started: " + err.Error()}
	}
	return &started{p: p, dial: tl.Dial, close: func() { tl.Close() }}, nil
}
