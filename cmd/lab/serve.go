package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/mcplab/mcplab/lab/server"
	"github.com/mcplab/mcplab/lab/wire"
)

func serveCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("serve", "serve [flags] reader|helpdesk", e.stderr)
	maxLine := fs.Int("max-line", wire.DefaultMaxLine, "longest message line accepted, in bytes")
	verbose := fs.Bool("v", false, "log every message read on stderr, not only the bad ones (helpdesk)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) > 0 && rest[0] == "notes" {
		return serveNotes(ctx, e, rest[1:])
	}
	if len(rest) > 0 && rest[0] == "tickets" {
		return serveTickets(ctx, e, rest[1:])
	}
	if len(rest) != 1 {
		return exitCannot, usagef("name the server to run: lab serve reader (lesson 1) or lab serve helpdesk (lesson 2)")
	}
	var h server.Handler
	switch rest[0] {
	case "reader":
		h = server.Reader{}
	case "helpdesk":
		return serveHelpdesk(ctx, e, *maxLine, *verbose)
	default:
		return exitCannot, usagef("no server named %q; the servers are: reader (lesson 1), helpdesk (lesson 2)", rest[0])
	}
	// A soft memory limit makes the collector work harder as the heap nears
	// it, so a flood of over-long lines keeps the server small: about one
	// line buffer plus what the requests in flight hold.
	if *maxLine > 0 {
		debug.SetMemoryLimit(int64(*maxLine)*2 + 16<<20)
	}
	srv := &server.Server{Handler: h, Log: e.stderr, MaxLine: *maxLine}
	if err := srv.Serve(ctx, e.stdin, e.stdout); err != nil {
		if errors.Is(err, context.Canceled) {
			return exitOK, nil
		}
		return exitInternal, fmt.Errorf("serving: %w", err)
	}
	return exitOK, nil
}
