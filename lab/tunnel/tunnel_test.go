package tunnel

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// echoServer listens on a loopback port and echoes each line back in
// upper case; it returns its address.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					io.WriteString(c, strings.ToUpper(line))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// startTunnel makes a grader's socket and runs a bridge to addr behind it;
// the bridge's error arrives on the channel when it ends.
func startTunnel(t *testing.T, ctx context.Context, addr string) (*Listener, <-chan error) {
	t.Helper()
	l, err := Listen(filepath.Join(t.TempDir(), "t.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	b, err := Open(ctx, l.Path())
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- b.Serve(ctx, addr) }()
	return l, served
}

// TestTunnelCarriesConnections checks that each Dial is a connection of
// its own to the server, both ways, and that closing the grader's end
// ends the bridge.
func TestTunnelCarriesConnections(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, served := startTunnel(t, ctx, echoServer(t))
	for i, word := range []string{"first\n", "second\n", "third\n"} {
		c, err := l.Dial(ctx)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		io.WriteString(c, word)
		got, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || got != strings.ToUpper(word) {
			t.Fatalf("dial %d: got %q, %v; want %q", i, got, err, strings.ToUpper(word))
		}
	}
	l.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("the bridge ended with %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("the bridge did not end when the grader closed its socket")
	}
}

// TestTunnelSaysWhenNothingListens checks that a Dial to a port nobody
// listens on fails with ErrRefused, naming the reason, and that Dial
// waits for a bridge that has not come only as long as its context.
func TestTunnelSaysWhenNothingListens(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	l, _ := startTunnel(t, ctx, addr)
	_, err = l.Dial(ctx)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("dial to a closed port: %v; want ErrRefused saying connection refused", err)
	}

	lonely, err := Listen(filepath.Join(t.TempDir(), "lonely.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer lonely.Close()
	short, cancelShort := context.WithCancel(ctx)
	cancelShort()
	if _, err := lonely.Dial(short); !errors.Is(err, ErrNoBridge) {
		t.Errorf("dial with no bridge: %v; want ErrNoBridge", err)
	}
}

// TestTunnelIgnoresStrangers checks that connections to the grader's
// socket that are not the bridge's (a second control connection, data
// nobody asked for, silence, a flood) are closed and never stand in for
// the server.
func TestTunnelIgnoresStrangers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, _ := startTunnel(t, ctx, echoServer(t))
	if _, err := l.Dial(ctx); err != nil { // the bridge is in
		t.Fatal(err)
	}
	var strangers []net.Conn
	defer func() {
		for _, c := range strangers {
			c.Close()
		}
	}()
	for i := range 3 * maxPending {
		c, err := net.Dial("unix", l.Path())
		if err != nil {
			continue // refused under the flood: fine
		}
		strangers = append(strangers, c)
		switch i % 3 {
		case 0:
			c.Write([]byte{tagControl})
		case 1:
			c.Write([]byte("D\x00\x00\x00\x00\x00\x00\x00\x07y\nFAKE\n"))
		}
	}
	for _, c := range strangers[:6] {
		if c.SetReadDeadline(time.Now().Add(time.Second)) == nil {
			if _, err := c.Read(make([]byte, 1)); err == nil {
				t.Error("a stranger's connection was sent something")
			}
		}
	}
	c, err := l.Dial(ctx)
	if err != nil {
		t.Fatalf("dial after the strangers: %v", err)
	}
	defer c.Close()
	io.WriteString(c, "real\n")
	if got, _ := bufio.NewReader(c).ReadString('\n'); got != "REAL\n" {
		t.Errorf("dial after the strangers reached %q, want the server's REAL", got)
	}
}

// TestTunnelNeverHandsOnALateConnection checks that the connection that
// answers an ask whose Dial gave up (its context ended first, as on a
// loaded machine) is closed, and the next Dial gets a connection of its
// own, made for it.
func TestTunnelNeverHandsOnALateConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens yet: the answer to the first ask is "n"
	l, _ := startTunnel(t, ctx, addr)
	gone, giveUp := context.WithCancel(ctx)
	giveUp()
	if _, err := l.Dial(gone); err == nil {
		t.Fatal("a Dial with an ended context succeeded")
	}
	// The server comes up; the late "n" must not reach this Dial.
	up, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	defer up.Close()
	go func() {
		c, err := up.Accept()
		if err == nil {
			io.WriteString(c, "hello\n")
			c.Close()
		}
	}()
	c, err := l.Dial(ctx)
	if err != nil {
		t.Fatalf("the Dial after one that gave up: %v (a late answer was handed on?)", err)
	}
	defer c.Close()
	if got, _ := bufio.NewReader(c).ReadString('\n'); got != "hello\n" {
		t.Errorf("read %q, want the server's hello", got)
	}
}

// TestTunnelCloseIgnoresASilentStranger checks that a connection to the
// grader's socket that never says what it is does not hold Close up for
// the hello's deadline (helloWithin): Close closes it.
func TestTunnelCloseIgnoresASilentStranger(t *testing.T) {
	l, err := Listen(filepath.Join(t.TempDir(), "t.sock"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", l.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	closed := make(chan error, 1)
	go func() { closed <- l.Close() }()
	c.SetReadDeadline(time.Now().Add(helloWithin / 2))
	// EOF once accepted, or a reset when Close came while it still waited
	// in the listen queue: either way closed, not left to time out.
	var ne net.Error
	if _, err := c.Read(make([]byte, 1)); err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("the silent stranger's read ended with %v, want the connection closed: Close did not close it", err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
}
