package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mcplab/mcplab/lab/notes"
	"github.com/mcplab/mcplab/lab/tickets"
)

// serveNotes runs lesson 3's notes library on stdio until stdin closes.
func serveNotes(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("serve notes", "serve notes", e.stderr)
	if rest, err := parseFlags(fs, args); err != nil {
		return exitCannot, err
	} else if len(rest) > 0 {
		return exitCannot, usagef("lab serve notes takes no arguments")
	}
	if err := notes.Serve(ctx, e.stdin, e.stdout, e.stderr); err != nil {
		if errors.Is(err, context.Canceled) {
			return exitOK, nil
		}
		return exitInternal, fmt.Errorf("serving: %w", err)
	}
	return exitOK, nil
}

// serveTickets runs lesson 3's ticket system over Streamable HTTP until
// interrupted.
func serveTickets(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("serve tickets", "serve tickets [--http ADDR]", e.stderr)
	addr := fs.String("http", tickets.DefaultAddr, "address to listen on, host:port")
	if rest, err := parseFlags(fs, args); err != nil {
		return exitCannot, err
	} else if len(rest) > 0 {
		return exitCannot, usagef("lab serve tickets takes only --http ADDR")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return exitCannot, fmt.Errorf("listening on %s: %w", *addr, err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, "tickets: "+format+"\n", args...) }
	if ip := net.ParseIP(hostOf(ln.Addr().String())); ip == nil || !ip.IsLoopback() {
		logf("warning: %s is reachable from other machines; the ticket system has no authentication", ln.Addr())
	}
	srv := &http.Server{Handler: tickets.Handler(logf), ReadHeaderTimeout: 10 * time.Second}
	logf("listening on http://%s%s (MCP 2026-07-28, Streamable HTTP)", ln.Addr(), tickets.Path)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return exitInternal, fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return exitInternal, fmt.Errorf("stopping: %w", err)
	}
	logf("stopped")
	return exitOK, nil
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}
