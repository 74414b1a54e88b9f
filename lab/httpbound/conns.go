package httpbound

import (
	"net"
	"sync"
)

// DefaultMaxConns bounds the connections a server holds open at once, as
// NewConns takes it: 128.
const DefaultMaxConns = 128

// Conns bounds how many connections a server holds open at once, across
// every listener it wraps: each connection takes a slot when it is
// accepted and gives it back once it is closed, so past the bound a new
// connection waits in the listen queue. Use NewConns.
type Conns struct {
	slots chan struct{}
}

// NewConns returns a bound of n connections open at once (n <= 0 means
// DefaultMaxConns).
func NewConns(n int) *Conns {
	if n <= 0 {
		n = DefaultMaxConns
	}
	return &Conns{slots: make(chan struct{}, n)}
}

// Open returns how many connections hold a slot now.
func (c *Conns) Open() int { return len(c.slots) }

// Listener returns ln within c: its Accept waits for a free slot, then
// for a connection. A wait for a slot ends, with net.ErrClosed, when the
// listener is closed or done is (nil: only the first).
func (c *Conns) Listener(ln net.Listener, done <-chan struct{}) net.Listener {
	return &listener{Listener: ln, conns: c, done: done, closed: make(chan struct{})}
}

type listener struct {
	net.Listener
	conns     *Conns
	done      <-chan struct{}
	closeOnce sync.Once
	closed    chan struct{}
}

// Accept waits for a free slot, then for a connection. An accept that
// fails gives its slot back.
func (l *listener) Accept() (net.Conn, error) {
	select {
	case l.conns.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.conns.slots
		return nil, err
	}
	return &conn{Conn: c, free: sync.OnceFunc(func() { <-l.conns.slots })}, nil
}

// Close closes the listener and ends a wait for a slot.
func (l *listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// conn gives its slot back once closed.
type conn struct {
	net.Conn
	free func()
}

// CloseWrite half-closes the connection when it can, as net/http does
// before it closes a connection whose request it did not read in full.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close closes the connection and frees its slot, once.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.free()
	return err
}
