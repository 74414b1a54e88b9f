// Package servers is the list of the lab's reference servers, by name: the
// one place a lesson's server is plugged in, so that `lab serve NAME`,
// `lab run` and the class grader's calibration start any of them with no
// code of their own. A lesson's manifest names its server; adding a lesson
// with a new server adds one entry to All.
package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/lab/helpdesk"
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/notes"
	"github.com/mcplab/mcplab/lab/server"
	"github.com/mcplab/mcplab/lab/tickets"
)

// Stdio is a server's three streams.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// Options tune a server run.
type Options struct {
	// MaxLine is the longest message line accepted, in bytes.
	MaxLine int
	// Verbose logs every message read, not only the bad ones.
	Verbose bool
	// Lesson is the folder of the lesson whose manifest names the server,
	// for servers that serve lesson data; nil when no lesson names it.
	Lesson fs.FS
}

// Server is one reference server.
type Server struct {
	Name string
	// Summary says in a few words what it is.
	Summary string
	// Serve runs the server on stdio until stdin closes (nil) or ctx ends.
	// It is nil for a server that speaks only HTTP. A server with both
	// Serve and HTTP speaks stdio unless told an address to listen on.
	Serve func(ctx context.Context, stdio Stdio, opts Options) error
	// HTTP, for a Streamable HTTP server, returns its handler; it logs
	// to log. Path is its MCP endpoint and Addr the address it listens
	// on unless told otherwise.
	HTTP       func(log io.Writer, opts Options) http.Handler
	Path, Addr string
	// Tools names every tool it offers, over all of its tools/list pages,
	// in its order; nil for a server without tools, or whose tools come
	// from a lesson's data.
	Tools func() []string
}

// All returns every reference server, by name.
func All() []Server {
	all := []Server{
		{Name: "reader", Summary: "plain JSON-RPC 2.0 over stdio with ping and wait", Serve: serveReader},
		{Name: "helpdesk", Summary: "a stateless MCP 2026-07-28 server with a ticket tool, on stdio (or Streamable HTTP with --http)", Serve: serveHelpdesk,
			HTTP: helpdeskHandler, Path: helpdesk.Path},
		{Name: "notes", Summary: "a notes library on stdio: three tools listed two per page, one very long note", Serve: serveNotes,
			Tools: func() []string { return toolNames(notes.New(notes.NewLibrary())) }},
		{Name: "tickets", Summary: "a ticket system over Streamable HTTP, whose search collides with the notes library's", HTTP: ticketsHandler, Path: tickets.Path, Addr: tickets.DefaultAddr,
			Tools: func() []string { return toolNames(tickets.New()) }},
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	return all
}

// Lookup finds a server by name, or says which servers there are.
func Lookup(name string) (Server, error) {
	var names []string
	for _, s := range All() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Server{}, fmt.Errorf("no server named %q; the servers are: %s", name, strings.Join(names, ", "))
}

// limitMemory makes the collector work harder as the heap nears a soft
// limit, so a flood of over-long lines keeps a server small: about one line
// buffer plus what the requests in flight hold.
func limitMemory(maxLine int) {
	if maxLine > 0 {
		debug.SetMemoryLimit(int64(maxLine)*2 + 16<<20)
	}
}

func serveReader(ctx context.Context, stdio Stdio, opts Options) error {
	limitMemory(opts.MaxLine)
	srv := &server.Server{Handler: server.Reader{}, Log: stdio.Err, MaxLine: opts.MaxLine}
	return ignoreCancel(srv.Serve(ctx, stdio.In, stdio.Out))
}

func serveHelpdesk(ctx context.Context, stdio Stdio, opts Options) error {
	data, err := helpdeskData(opts)
	if err != nil {
		return err
	}
	srv := helpdesk.New(data)
	srv.Log, srv.LogRequests, srv.MaxLine = stdio.Err, opts.Verbose, opts.MaxLine
	limitMemory(opts.MaxLine)
	return ignoreCancel(srv.ServeStdio(ctx, stdio.In, stdio.Out))
}

// helpdeskHandler is lesson 2's help desk served over Streamable HTTP at
// helpdesk.Path, the reference of lesson 4: the same dispatch as on stdio,
// every answer one JSON object. Data it cannot read is logged once, and
// every request is then answered 500 with the reason.
func helpdeskHandler(log io.Writer, opts Options) http.Handler {
	data, err := helpdeskData(opts)
	if err != nil {
		fmt.Fprintf(log, "helpdesk: cannot serve: %v\n", err)
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "helpdesk: cannot serve: "+err.Error(), http.StatusInternalServerError)
		})
	}
	return helpdesk.Handler(data, func(format string, args ...any) { fmt.Fprintf(log, "helpdesk: "+format+"\n", args...) })
}

// helpdeskData reads the help desk's tickets and customers from the data
// folder of the lesson that names it.
func helpdeskData(opts Options) (*helpdesk.Data, error) {
	if opts.Lesson == nil {
		return nil, errors.New("the helpdesk serves a lesson's tickets, and no lesson names it")
	}
	dir, err := fs.Sub(opts.Lesson, "data")
	if err != nil {
		return nil, fmt.Errorf("finding the helpdesk's data: %w", err)
	}
	return helpdesk.LoadData(dir)
}

func serveNotes(ctx context.Context, stdio Stdio, _ Options) error {
	return ignoreCancel(notes.Serve(ctx, stdio.In, stdio.Out, stdio.Err))
}

func ticketsHandler(log io.Writer, _ Options) http.Handler {
	return tickets.Handler(func(format string, args ...any) { fmt.Fprintf(log, "tickets: "+format+"\n", args...) })
}

// toolNames names the tools srv offers, in its order.
func toolNames(srv *mcpserver.Server) []string {
	var names []string
	for _, t := range srv.Tools() {
		names = append(names, t.Name)
	}
	return names
}

func ignoreCancel(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
