// Package connlimit bounds how many connections a server holds open at
// once: each connection takes a slot when it is accepted and gives it back
// once it is closed, so past the bound a new connection waits in the
// listen queue. It is the one accept loop step lab/mcphttp's LimitListener
// and lab/rig's listeners share.
package connlimit

import "net"

// Accept waits for a free slot in slots (a buffered channel whose capacity
// is the bound, shared by every listener the bound covers), or for done to
// be closed, when it returns net.ErrClosed; then it accepts ln's next
// connection. It returns the connection with the function that gives its
// slot back, to be called exactly once, when the connection is closed. An
// accept that fails gives its slot back itself.
func Accept(ln net.Listener, slots chan struct{}, done <-chan struct{}) (net.Conn, func(), error) {
	select {
	case slots <- struct{}{}:
	case <-done:
		return nil, nil, net.ErrClosed
	}
	c, err := ln.Accept()
	if err != nil {
		<-slots
		return nil, nil, err
	}
	return c, func() { <-slots }, nil
}
