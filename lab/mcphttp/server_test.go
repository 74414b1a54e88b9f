package mcphttp_test

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/mcphttp"
)

// A LimitListener of 2 hands out a third connection only once one of the
// first two has closed, and Close ends a wait for a slot.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := mcphttp.LimitListener(inner, 2)
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ln.Accept(); err != nil {
		t.Fatal(err)
	}
	var closed atomic.Bool
	third := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Errorf("the third Accept: %v", err)
		} else if !closed.Load() {
			t.Error("a third connection was accepted while two were open")
		}
		third <- c
	}()
	closed.Store(true)
	first.Close()
	first.Close() // a second Close frees nothing more
	select {
	case c := <-third:
		if c != nil {
			defer c.Close()
		}
	case <-time.After(generous):
		t.Fatal("the third connection was not accepted after the first closed")
	}
	// Both slots are taken again: an Accept waits, and Close ends it.
	waiting := make(chan error, 1)
	go func() {
		_, err := ln.Accept()
		waiting <- err
	}()
	ln.Close()
	select {
	case err := <-waiting:
		if err == nil {
			t.Error("Accept after Close returned a connection")
		}
	case <-time.After(generous):
		t.Fatal("Close did not end the wait for a slot")
	}
}

// NewServer sets the header bounds.
func TestNewServer(t *testing.T) {
	s := mcphttp.NewServer(nil)
	if s.ReadHeaderTimeout != 10*time.Second || s.IdleTimeout != 60*time.Second || s.MaxHeaderBytes != 64<<10 {
		t.Errorf("got ReadHeaderTimeout %v, IdleTimeout %v, MaxHeaderBytes %d", s.ReadHeaderTimeout, s.IdleTimeout, s.MaxHeaderBytes)
	}
}
