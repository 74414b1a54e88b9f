package main

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcplab/mcplab/internal/servers"
	"github.com/mcplab/mcplab/lab/wire"
	"github.com/mcplab/mcplab/lessons"
)

// serveCmd runs a reference server by name. The names come from
// internal/servers, and the lesson that names a server in its manifest
// lends it its folder: no server is named here.
func serveCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("serve", "serve [flags] NAME", e.stderr)
	maxLine := fs.Int("max-line", wire.DefaultMaxLine, "longest message line accepted, in bytes")
	verbose := fs.Bool("v", false, "log every message read on stderr, not only the bad ones")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	// Lesson 3's demo servers take flags of their own (tickets serves
	// HTTP); they are not in internal/servers yet.
	if len(rest) > 0 && rest[0] == "notes" {
		return serveNotes(ctx, e, rest[1:])
	}
	if len(rest) > 0 && rest[0] == "tickets" {
		return serveTickets(ctx, e, rest[1:])
	}
	if len(rest) != 1 {
		return exitCannot, usagef("name the server to run: lab serve NAME, one of %s", serverList())
	}
	srv, err := servers.Lookup(rest[0])
	if err != nil {
		return exitCannot, usagef("no server named %q; the servers are: %s", rest[0], serverList())
	}
	opts := servers.Options{MaxLine: *maxLine, Verbose: *verbose}
	if m := lessonServing(srv.Name); m != nil {
		if opts.Lesson, err = subFS(m.Dir); err != nil {
			return exitInternal, err
		}
	}
	if err := srv.Serve(ctx, servers.Stdio{In: e.stdin, Out: e.stdout, Err: e.stderr}, opts); err != nil {
		return exitInternal, fmt.Errorf("serving: %w", err)
	}
	return exitOK, nil
}

// lessonServing returns the built-in lesson whose manifest names the
// server, if one does.
func lessonServing(name string) *lessons.Manifest {
	all, _ := lessons.All()
	for _, m := range all {
		if m.Server == name {
			return m
		}
	}
	return nil
}

func subFS(dir string) (fs.FS, error) {
	sub, err := fs.Sub(lessons.FS(), dir)
	if err != nil {
		return nil, fmt.Errorf("opening lesson folder %s: %w", dir, err)
	}
	return sub, nil
}

// serverList names every reference server, with the lesson that uses it:
// "helpdesk (lesson 2), reader (lesson 1)".
func serverList() string {
	var out []string
	for _, s := range servers.All() {
		name := s.Name
		if m := lessonServing(s.Name); m != nil {
			name += fmt.Sprintf(" (lesson %d)", m.Number)
		}
		out = append(out, name)
	}
	return strings.Join(out, ", ")
}
