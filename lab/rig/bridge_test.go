//go:build unix

package rig

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/event"
)

// childEnv, when set, makes the test binary play a client behind a
// bridge instead of running the tests: it posts tools/list to the URL in
// the variable and prints the answer's body.
const childEnv = "RIG_TEST_CHILD_URL"

func TestMain(m *testing.M) {
	if url := os.Getenv(childEnv); url != "" {
		os.Exit(childFetch(url))
	}
	if sock := os.Getenv(bridgeEnv); sock != "" {
		os.Exit(childBridge(sock, os.Args[1:]))
	}
	if sock := os.Getenv(forgeEnv); sock != "" {
		os.Exit(childForge(sock))
	}
	os.Exit(m.Run())
}

func childFetch(url string) int {
	req, err := http.NewRequest("POST", url, strings.NewReader(listBody))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	for _, l := range listHeader {
		k, v, _ := strings.Cut(l, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	defer resp.Body.Close()
	fmt.Printf("%d ", resp.StatusCode)
	io.Copy(os.Stdout, resp.Body)
	return 0
}

// freeAddr is a loopback address where nothing listens: a port the
// system just handed out, on an address of 127/8 nothing else here uses.
func freeAddr(t *testing.T) string {
	t.Helper()
	return testkit.DeadAddr(t, "127.77.0.1")
}

// A client behind the bridge reaches the rig's HTTP server at an address
// where only the bridge listens, through the server's socket; a pair
// whose address is taken (here by the rig itself) needs no bridge and
// is skipped.
func TestBridgeForwardsToSocket(t *testing.T) {
	evs := newEventLog()
	r := startTickets(t, Options{OnEvent: evs.record})
	direct := post(t, "tcp", r.Bridges()[0].Addr, "/mcp", listHeader, listBody)
	evs.waitFor(t, event.Exit)
	addr := freeAddr(t)
	pairs := []BridgePair{r.Bridges()[0], {Addr: addr, Socket: r.Bridges()[0].Socket}}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"http://" + addr + "/mcp", "http://" + r.Bridges()[0].Addr + "/mcp"} {
		t.Setenv(childEnv, url)
		// The race detector would linger a second as the child exits.
		t.Setenv("GORACE", "atexit_sleep_ms=0")
		var stdout, stderr bytes.Buffer
		code, err := Bridge(context.Background(), pairs, []string{self}, strings.NewReader(""), &stdout, &stderr)
		if err != nil || code != 0 {
			t.Fatalf("%s: Bridge returned %d, %v; stderr %q", url, code, err, stderr.String())
		}
		if want := "200 " + direct.body; stdout.String() != want {
			t.Errorf("%s: the client got %q, want %q", url, stdout.String(), want)
		}
		if stderr.Len() != 0 {
			t.Errorf("%s: stderr %q, want nothing", url, stderr.String())
		}
		got := evs.waitFor(t, event.Exit)
		if len(got) != 4 || got[0].Kind != event.Post || got[0].Text != listBody {
			t.Errorf("%s: events\n%s", url, dumpEvents(got))
		}
	}
	// The bridge is gone with the client: nothing listens there now.
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("something still listens at %s after the bridge returned", addr)
	}
}

// A pair whose address cannot be listened on for another reason than
// being taken is an error, before the command runs.
func TestBridgeBadAddress(t *testing.T) {
	dir := shortDir(t)
	marker := filepath.Join(dir, "ran")
	_, err := Bridge(context.Background(), []BridgePair{{Addr: "127.0.0.1:99999", Socket: "/nonexistent"}},
		[]string{"/bin/sh", "-c", "touch " + marker}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "bridging 127.0.0.1:99999: ") {
		t.Errorf("error %v, want one naming the address", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	if _, err := Bridge(context.Background(), nil, nil, nil, io.Discard, io.Discard); err == nil || err.Error() != "no command to run behind the bridge" {
		t.Errorf("no command: %v", err)
	}
	if _, err := Bridge(context.Background(), nil, []string{filepath.Join(dir, "missing")}, nil, io.Discard, io.Discard); err == nil || !strings.HasPrefix(err.Error(), "starting "+filepath.Join(dir, "missing")+": ") {
		t.Errorf("a missing command: %v", err)
	}
}

// The bridge returns the command's exit status, and 128 plus the signal
// for a command a signal ended; the command has the bridge's stdio.
func TestBridgeExitStatus(t *testing.T) {
	for _, tt := range []struct {
		script string
		want   int
		out    string
	}{
		{"cat; exit 0", 0, "in"},
		{"printf out; exit 7", 7, "out"},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM), ""},
		{"kill -KILL $$", 128 + int(syscall.SIGKILL), ""},
	} {
		var stdout, stderr bytes.Buffer
		code, err := Bridge(context.Background(), nil, []string{"/bin/sh", "-c", tt.script}, strings.NewReader("in"), &stdout, &stderr)
		if err != nil || code != tt.want || stdout.String() != tt.out || stderr.Len() != 0 {
			t.Errorf("%q: %d, %v, stdout %q, stderr %q; want %d, stdout %q", tt.script, code, err, stdout.String(), stderr.String(), tt.want, tt.out)
		}
	}
}

// A process the client started and left running when it exited is ended
// by the bridge, which says so on stderr.
func TestBridgeEndsLeftRunning(t *testing.T) {
	dir := shortDir(t)
	pidFile := filepath.Join(dir, "pid")
	var stdout, stderr bytes.Buffer
	code, err := Bridge(context.Background(), nil,
		[]string{"/bin/sh", "-c", "sleep 1000 </dev/null >/dev/null 2>&1 & echo $! >" + pidFile + "; exit 0"},
		strings.NewReader(""), &stdout, &stderr)
	if err != nil || code != 0 {
		t.Fatalf("Bridge returned %d, %v", code, err)
	}
	want := LeftRunning + " 1 server process the client started was still running when it exited; the bridge ended it\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// The bridge killed and reaped it: the pid names no process now (or,
	// at worst, a new one that is not our child).
	if err := syscall.Kill(pid, 0); err == nil {
		if stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); bytes.Contains(stat, []byte("(sleep)")) {
			t.Errorf("the left-over server %d still runs: %s", pid, stat)
		}
	}
	// A client that leaves nothing behind gets no such line.
	stderr.Reset()
	if code, err := Bridge(context.Background(), nil, []string{"/bin/sh", "-c", "sleep 0 & wait"}, strings.NewReader(""), &stdout, &stderr); err != nil || code != 0 || stderr.Len() != 0 {
		t.Errorf("a client that waits for its child: %d, %v, stderr %q", code, err, stderr.String())
	}
}

// bridgePatience bounds the wait for a bridge whose client exited at
// once: a correct bridge returns within milliseconds.
const bridgePatience = 20 * time.Second

// A left-over process that keeps the client's stderr open must not keep
// the bridge from returning: the bridge ends it once the client exits,
// whatever writer it was given.
func TestBridgeLeftRunningHoldsStderr(t *testing.T) {
	dir := shortDir(t)
	pidFile := filepath.Join(dir, "pid")
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	ended := make(chan struct{})
	// Should the bridge hang, end the left-over process and let the
	// bridge finish, so that it ends nothing of a later test's.
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		select {
		case <-ended:
		case <-time.After(patience):
		}
	})
	var stderr bytes.Buffer
	go func() {
		code, err := Bridge(context.Background(), nil, []string{"/bin/sh", "-c", "sleep 1000 & echo $! >" + pidFile + "; exit 0"},
			strings.NewReader(""), io.Discard, &stderr)
		done <- result{code, err}
		close(ended)
	}()
	select {
	case res := <-done:
		if res.err != nil || res.code != 0 || !strings.HasPrefix(stderr.String(), LeftRunning+" 1 ") {
			t.Errorf("Bridge returned %d, %v; stderr %q", res.code, res.err, stderr.String())
		}
	case <-time.After(bridgePatience):
		t.Errorf("Bridge did not return within %v: it waits for the left-over process to close the stderr pipe before ending it", bridgePatience)
	}
}
