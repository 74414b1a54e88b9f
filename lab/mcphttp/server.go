package mcphttp

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/connlimit"
)

// The default bounds on an HTTP server's connections and headers, as
// NewServer and LimitListener set them.
const (
	// DefaultReadHeaderTimeout is how long a request's headers may take: 10 s.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout is how long a kept-alive connection may wait
	// for its next request: 60 s.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxHeaderBytes bounds a request's headers: 64 KiB.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultMaxConns bounds the connections open at once: 128. Past it a
	// new connection waits in the listen queue until one closes.
	DefaultMaxConns = 128
)

// NewServer returns an http.Server for h with the header bounds set:
// DefaultReadHeaderTimeout, DefaultIdleTimeout and DefaultMaxHeaderBytes.
// Bodies are bounded by the Handler (Limits); connections by serving on a
// LimitListener.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: DefaultReadHeaderTimeout,
		IdleTimeout:       DefaultIdleTimeout,
		MaxHeaderBytes:    DefaultMaxHeaderBytes,
	}
}

// LimitListener returns a listener that keeps at most n of ln's
// connections open at once (n <= 0 means DefaultMaxConns): Accept waits
// for one to close before it takes the next from the queue.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		n = DefaultMaxConns
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots     chan struct{}
	closeOnce sync.Once
	done      chan struct{}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	c, free, err := connlimit.Accept(l.Listener, l.slots, l.done)
	if err != nil {
		return nil, err
	}
	return &limitConn{Conn: c, free: free}, nil
}

// Close closes the listener and ends a wait for a slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitConn struct {
	net.Conn
	once sync.Once
	free func()
}

// CloseWrite half-closes the connection when it can, as net/http does
// before it closes a connection whose request it did not read in full.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Close closes the connection and frees its slot, once.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
