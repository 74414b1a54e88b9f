package mcpclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/proc"
)

// The test binary doubles as the servers of the stdio tests: with
// MCPCLIENT_FAKE_SERVER set it is one of them instead.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPCLIENT_FAKE_SERVER"); mode != "" {
		os.Exit(fakeProcess(mode))
	}
	// The race detector's runtime sleeps a second before a process exits;
	// the servers these tests start need not.
	os.Setenv("GORACE", "atexit_sleep_ms=0")
	os.Exit(m.Run())
}

// fakeProcess is a server process. "polite" answers every request with an
// empty tool list and exits when stdin ends; "dies" says why on stderr and
// exits 3 at the first request; "deaf" never exits by itself.
func fakeProcess(mode string) int {
	fmt.Fprintln(os.Stderr, "fake server: ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch mode {
		case "dies":
			fmt.Fprintln(os.Stderr, "fatal: the notes folder is missing")
			return 3
		case "polite":
			var id int
			fmt.Sscanf(sc.Text()[strings.Index(sc.Text(), `"id":`)+5:], "%d", &id)
			fmt.Printf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","tools":[]}}`+"\n", id)
		}
	}
	if mode == "deaf" {
		select {}
	}
	fmt.Fprintln(os.Stderr, "fake server: stdin closed, bye")
	return 0
}

func startFake(t *testing.T, mode string, log func(string)) (*Client, *processConn) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr := Command{
		Starter: proc.Command{Path: exe, Env: append(os.Environ(), "MCPCLIENT_FAKE_SERVER="+mode)},
		Log:     log,
		Grace:   patience,
	}
	if mode == "deaf" {
		tr.Grace = time.Millisecond // it will not exit; do not wait for it
	}
	c, err := Connect(context.Background(), tr, Options{Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, c.conn.(*processConn)
}

// stderrLines collects a server's log.
type stderrLines struct {
	mu    sync.Mutex
	lines []string
}

func (s *stderrLines) add(l string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, l)
}

func (s *stderrLines) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// Closing closes the server's stdin; a server that then exits is never
// killed. Its stderr is its log.
func TestProcessPoliteExit(t *testing.T) {
	logs := &stderrLines{}
	c, pc := startFake(t, "polite", logs.add)
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if !pc.exit.OK() {
		t.Errorf("the server %s; want a clean exit after stdin closed", pc.exit)
	}
	got := strings.Join(logs.all(), "\n")
	if got != "fake server: ready\nfake server: stdin closed, bye" {
		t.Errorf("stderr lines: %q", got)
	}
}

// A server that does not exit when its stdin closes is killed.
func TestProcessKilledWhenDeaf(t *testing.T) {
	c, pc := startFake(t, "deaf", nil)
	c.Close()
	if pc.exit.Signal != "killed" {
		t.Errorf("the server %s; want it killed", pc.exit)
	}
}

// A server that dies fails the waiting request at once, quoting its stderr.
func TestProcessDeathFailsWaiting(t *testing.T) {
	c, _ := startFake(t, "dies", nil)
	_, err := c.Call(context.Background(), "tools/list", nil)
	var ce *ConnError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want the connection's end", err)
	}
	for _, want := range []string{"exited with status 3", "fatal: the notes folder is missing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
}

// A program that cannot start fails Connect itself, not a later request.
func TestProcessStartFailure(t *testing.T) {
	_, err := Connect(context.Background(), Command{Starter: proc.Command{Path: "/no/such/server"}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "could not be started") {
		t.Fatalf("got %v", err)
	}
}
