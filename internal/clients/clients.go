// Package clients is the list of the lab's reference clients, by name: the
// one place a client lesson's reference client is plugged in, so that
// `lab client NAME` runs it, and `lab run` and the graders start it as
// `lab client NAME`, with no code of their own. A client lesson's manifest
// names its reference client (client: NAME); adding a lesson with a new
// reference client adds one entry to All.
package clients

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcplab/mcplab/lab/mcphost"
	"github.com/mcplab/mcplab/lab/mcphost/contract"
)

// Client is one reference client: a way of answering commands over the
// servers the lab mounts for it from lab client's --config.
type Client struct {
	// Name is how a client lesson's manifest names it (client: NAME) and
	// lab client NAME runs it.
	Name string
	// Summary says in a few words what it is.
	Summary string
	// Approve is the approval the client gives each call of a tool that
	// needs one, for the host that mounts its servers.
	Approve func(t *mcphost.Tool, arguments json.RawMessage) bool
	// Serve answers the commands of in on out over the mounted servers h,
	// until in ends (nil) or ctx does. Its error is for input that cannot
	// be read or an answer that cannot be written.
	Serve func(ctx context.Context, h *mcphost.Host, in io.Reader, out io.Writer) error
}

// All returns every reference client, in the order of their names.
func All() []Client {
	all := []Client{
		{Name: "host", Summary: "the lab's MCP host behind lesson 3's command contract (list_tools, call_tool)", Approve: approveAll, Serve: serveContract},
	}
	slices.SortFunc(all, func(a, b Client) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Lookup finds a client by name, or says which clients there are.
func Lookup(name string) (Client, error) {
	all := All()
	if i := slices.IndexFunc(all, func(c Client) bool { return c.Name == name }); i >= 0 {
		return all[i], nil
	}
	names := make([]string, len(all))
	for i, c := range all {
		names[i] = c.Name
	}
	return Client{}, fmt.Errorf("no reference client named %q; the clients are: %s", name, strings.Join(names, ", "))
}

// approveAll approves every call: under the contract a call_tool command is
// the user's own request, so it stands for approval.
func approveAll(*mcphost.Tool, json.RawMessage) bool { return true }

func serveContract(ctx context.Context, h *mcphost.Host, in io.Reader, out io.Writer) error {
	return contract.Serve(ctx, h, in, out)
}
