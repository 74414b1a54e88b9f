package mcphttp

import (
	"net"
	"net/http"

	"github.com/mcplab/mcplab/lab/httpbound"
)

// NewServer returns an http.Server for h with lab/httpbound's default
// bounds on headers and idle connections (httpbound.Server's defaults).
// Bodies are bounded by the Handler; connections by serving on a
// LimitListener.
func NewServer(h http.Handler) *http.Server {
	return httpbound.Server{}.HTTPServer(h)
}

// LimitListener returns a listener that keeps at most n of ln's
// connections open at once (n <= 0 means httpbound.DefaultMaxConns):
// Accept waits for one to close before it takes the next from the queue.
func LimitListener(ln net.Listener, n int) net.Listener {
	return httpbound.NewConns(n).Listener(ln, nil)
}
