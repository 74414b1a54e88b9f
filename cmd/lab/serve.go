package main

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/servers"
	"github.com/mcplab/mcplab/lab/mcphttp"
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
	lessonDir := fs.String("lesson-dir", "", "serve the data of the lesson in this folder, whose manifest names the server, instead of the built-in lesson's")
	addr := fs.String("http", "", "address to listen on, host:port, for a server that speaks HTTP (default: the server's own, such as 127.0.0.1:3115 for tickets)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) == 0 {
		return exitCannot, usagef("name the server to run: lab serve NAME, one of %s", serverList())
	}
	srv, err := servers.Lookup(rest[0])
	if err != nil {
		return exitCannot, usagef("no server named %q; the servers are: %s", rest[0], serverList())
	}
	// Flags may follow the name too: lab serve tickets --http ADDR.
	if rest, err = parseFlags(fs, rest[1:]); err != nil {
		return exitCannot, err
	}
	if len(rest) > 0 {
		return exitCannot, usagef("lab serve takes one server name; %q is one too many", rest[0])
	}
	opts := servers.Options{MaxLine: *maxLine, Verbose: *verbose}
	if *lessonDir != "" {
		if opts.Lesson, err = folderServing(*lessonDir, srv.Name); err != nil {
			return exitCannot, err
		}
	} else if m := lessonServing(srv.Name); m != nil {
		if opts.Lesson, err = subFS(m.Dir); err != nil {
			return exitInternal, err
		}
	}
	// A server that speaks both (the helpdesk) speaks stdio, byte for
	// byte as before, unless --http gives it an address.
	if srv.HTTP != nil && (srv.Serve == nil || *addr != "") {
		if *addr == "" {
			*addr = srv.Addr
		}
		if *addr, err = portFromEnv(*addr, e.getenv); err != nil {
			return exitCannot, err
		}
		return serveHTTP(ctx, e, srv, *addr, opts)
	}
	if *addr != "" {
		return exitCannot, usagef("%s speaks stdio only; --http is for servers that speak HTTP", srv.Name)
	}
	if err := srv.Serve(ctx, servers.Stdio{In: e.stdin, Out: e.stdout, Err: e.stderr}, opts); err != nil {
		return exitInternal, fmt.Errorf("serving: %w", err)
	}
	return exitOK, nil
}

// folderServing returns the files of the lesson folder dir, once its
// manifest has been checked as every command checks it (see kinds.Find)
// and found to name the server: a folder is served only by the server its
// lesson plays.
func folderServing(dir, name string) (fs.FS, error) {
	fsys := dirFS(dir)
	m, err := lessons.ReadManifest(fsys, ".")
	if err != nil {
		return nil, usagef("--lesson-dir %s: %v", dir, err)
	}
	if _, err := kinds.For(m); err != nil {
		return nil, usagef("--lesson-dir %s: %v", dir, err)
	}
	names := m.Servers
	if m.Server != "" {
		names = append([]string{m.Server}, names...)
	}
	if !slices.Contains(names, name) {
		return nil, usagef("--lesson-dir %s: its lesson %d does not play the server %s (its manifest names %s)", dir, m.Number, name, strings.Join(names, ", "))
	}
	return fsys, nil
}

// lessonServing returns the built-in lesson whose manifest names the
// server, if one does.
func lessonServing(name string) *lessons.Manifest {
	all, _ := lessons.All()
	for _, m := range all {
		if m.Server == name {
			return m
		}
		for _, s := range m.Servers {
			if s == name {
				return m
			}
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

// serveHTTP runs a Streamable HTTP server at addr until interrupted.
func serveHTTP(ctx context.Context, e *env, srv servers.Server, addr string, opts servers.Options) (int, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return exitCannot, fmt.Errorf("listening on %s: %w", addr, err)
	}
	if ip := net.ParseIP(hostOf(ln.Addr().String())); ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(e.stderr, "%s: warning: %s is reachable from other machines, and the server has no authentication\n", srv.Name, ln.Addr())
	}
	// Headers, bodies (in the handler) and connections are bounded, so
	// stalled or broken uploads cost bounded memory.
	hs := mcphttp.NewServer(srv.HTTP(e.stderr, opts))
	ln = mcphttp.LimitListener(ln, 0)
	fmt.Fprintf(e.stderr, "%s: listening on http://%s%s (MCP 2026-07-28, Streamable HTTP)\n", srv.Name, ln.Addr(), srv.Path)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return exitInternal, fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		// A request still unanswered after 5 s (an upload that stalls
		// gets up to 10 s) is cut off rather than waited for.
		hs.Close()
		fmt.Fprintf(e.stderr, "%s: requests still open after 5s were cut off\n", srv.Name)
	}
	fmt.Fprintf(e.stderr, "%s: stopped\n", srv.Name)
	return exitOK, nil
}

// portFromEnv puts the environment's PORT in place of $PORT in an
// address, as an HTTP lesson's grader starts its reference: it gives each
// copy its port in PORT, and starts lab serve NAME --http 127.0.0.1:$PORT
// without a shell to expand it.
func portFromEnv(addr string, getenv func(string) string) (string, error) {
	if !strings.Contains(addr, "$PORT") {
		return addr, nil
	}
	port := getenv("PORT")
	if port == "" {
		return "", usagef("--http %s names $PORT, and the environment variable PORT is not set", addr)
	}
	return strings.ReplaceAll(addr, "$PORT", port), nil
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}
