package httpbound

import (
	"log"
	"net/http"
	"time"
)

// The default bounds on a server's headers and idle connections, as
// Server takes them.
const (
	// DefaultReadHeaderTimeout is how long a request's headers may take:
	// 10 s.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout is how long a kept-alive connection may wait for
	// its next request: 60 s.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxHeaderBytes bounds a request's headers: 64 KiB (net/http
	// adds 4 KiB of slack). Past it the request is answered 431.
	DefaultMaxHeaderBytes = 64 << 10
)

// Server bounds an HTTP server's request headers and idle connections,
// as the lab's side playing the server. A zero field takes its default.
// Bodies are bounded by the handler (Bodies), connections by the listener
// (Conns).
type Server struct {
	// MaxHeaderBytes bounds a request's headers (DefaultMaxHeaderBytes).
	MaxHeaderBytes int
	// ReadHeaderTimeout is how long a request's headers may take
	// (DefaultReadHeaderTimeout); past it the connection is dropped.
	ReadHeaderTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request (DefaultIdleTimeout).
	IdleTimeout time.Duration
	// ErrorLog receives net/http's own complaints; nil means its
	// default, the log package's standard logger.
	ErrorLog *log.Logger
}

// HTTPServer returns an http.Server for h within s.
func (s Server) HTTPServer(h http.Handler) *http.Server {
	if s.MaxHeaderBytes <= 0 {
		s.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if s.ReadHeaderTimeout <= 0 {
		s.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if s.IdleTimeout <= 0 {
		s.IdleTimeout = DefaultIdleTimeout
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.ReadHeaderTimeout,
		IdleTimeout:       s.IdleTimeout,
		MaxHeaderBytes:    s.MaxHeaderBytes,
		ErrorLog:          s.ErrorLog,
	}
}
