package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/tunnel"
)

// lab relay --tunnel carries the grader's connections to a server that
// listens behind it, and SIGTERM to the relay reaches the server, which
// ends cleanly: the relay then exits with the server's status, 0, rather
// than killing it as the signal's cancelled context once did.
func TestRelayTunnelCarriesConnectionsAndSIGTERM(t *testing.T) {
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	tl, err := tunnel.Listen(filepath.Join(t.TempDir(), "t.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	cmd := exec.Command(exe, "relay", "--tunnel", tl.Path()+"="+addr, "--", exe, "serve", "helpdesk", "--http", addr)
	cmd.Env = append(os.Environ(), "LAB_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()

	// Ready once a connection through the tunnel is taken by the server.
	var conn net.Conn
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for conn == nil {
		c, err := tl.Dial(ctx)
		if err == nil {
			conn = c
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the relay ended before the server listened: %v", err)
		case <-ctx.Done():
			t.Fatalf("the server never took a connection through the tunnel: %v", err)
		case <-tick.C:
		}
	}
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer through the tunnel: %v", err)
	}
	resp.Body.Close()
	conn.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /mcp through the tunnel: %s, want 405 from the help desk", resp.Status)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM the relay ended with %v, want status 0 (the server's own clean exit)", err)
		}
	case <-ctx.Done():
		t.Fatal("the relay did not end after SIGTERM")
	}
}
