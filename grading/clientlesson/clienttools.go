package clientlesson

import (
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/notes"
	"github.com/mcplab/mcplab/lab/tickets"
)

// offeredTools names every tool the server behind alias offers, over all
// of its tools/list pages, in the server's order; nil when the scenario
// has no such alias or the lab does not know the server. A message that
// tells a student which names a server knows lists these, not only the
// pages the client happened to read.
func (r *clientRun) offeredTools(alias string) []string {
	s, ok := r.Aliases[alias]
	if !ok {
		return nil
	}
	var srv *mcpserver.Server
	switch s.Server {
	case "notes":
		srv = notes.New(notes.NewLibrary())
	case "tickets":
		srv = tickets.New()
	default:
		return nil
	}
	var names []string
	for _, t := range srv.Tools() {
		names = append(names, t.Name)
	}
	return names
}
