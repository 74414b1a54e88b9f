package testkit

import (
	"net"
	"sync/atomic"
	"testing"
)

// DeadAddr returns an address (host:port) on host where nothing listens: a
// port the system gave a listener that is closed again before DeadAddr
// returns.
func DeadAddr(t testing.TB, host string) string {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// CountConnections listens on a port of 127.0.0.1 until t ends, closing
// each connection it accepts, and returns the port and the count of the
// connections accepted so far: a test's way to see whether a program
// reached the network.
func CountConnections(t testing.TB) (int, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, &conns
}
