// Package tickets is lesson 3's ticket system: a stateless 2026-07-28 MCP
// server over Streamable HTTP, built on lab/mcpserver and served by
// lab/mcphttp. Its search collides with the notes library's, one tool has
// a name that is not ASCII (so a client must use the Base64 sentinel in
// Mcp-Name), tools/list answers JSON, and tools/call answers an event
// stream: a progress notification when the request asked for one, the
// response, then a log notification when the request set a log level.
package tickets

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcphttp"
	"github.com/mcplab/mcplab/lab/mcpserver"
)

// DefaultAddr is where the ticket system listens unless told.
const DefaultAddr = "127.0.0.1:3115"

// Path is the MCP endpoint's path.
const Path = "/mcp"

// Info is how the server names itself.
var Info = mcp.Implementation{Name: "mcplab-tickets", Title: "Ticket system", Version: "1.0.0"}

// Ticket is one ticket.
type Ticket struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Subject string `json:"subject"`
}

var tickets = []Ticket{
	{"T-101", "open", "Invoice totals crash with division by zero on empty invoices"},
	{"T-102", "open", "Payment API retries never give up"},
	{"T-103", "closed", "Server logs printed on stdout break the MCP client"},
	{"T-104", "open", "Nightly queue stalls; workers stop heartbeating"},
}

// line is the ticket as search and get_ticket write it: "T-101 (open): subject".
func (t Ticket) line() string { return fmt.Sprintf("%s (%s): %s", t.ID, t.Status, t.Subject) }

// The tools, as tools/list shows them.
var (
	SearchTool = mcp.Tool{
		Name:        "search",
		Title:       "Search tickets",
		Description: "Finds tickets whose subject contains the query (case does not matter).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to look for, such as \"division by zero\"."}},"required":["query"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: new(true)},
	}
	GetTool = mcp.Tool{
		Name:        "get_ticket",
		Title:       "Get a ticket",
		Description: "Returns one ticket by its id, such as \"T-101\".",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`),
	}
	// SummaryTool's name is not ASCII: its Mcp-Name header needs the
	// =?base64?...?= form.
	SummaryTool = mcp.Tool{
		Name:        "résumé",
		Title:       "Summary of the tickets",
		Description: "Counts the tickets by status.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
	}
)

// New returns the ticket system's MCP server.
func New() *mcpserver.Server {
	s := &mcpserver.Server{
		Info:         Info,
		Instructions: "A ticket system: search tickets, read one, or count them by status.",
		CacheScope:   mcp.CachePublic,
	}
	s.AddTool(SearchTool, lookupTool("query", "search needs the argument query, a string such as \"division by zero\".", searchTickets))
	s.AddTool(GetTool, lookupTool("id", "get_ticket needs the argument id, a string such as \"T-101\".", getTicket))
	s.AddTool(SummaryTool, mcpserver.ToolFunc(func(ctx context.Context, _ *mcpserver.Request, _ json.RawMessage) (*mcp.CallToolResult, error) {
		mcphttp.Progress(ctx, 1, 2, "counting tickets")
		count := map[string]int{}
		for _, t := range tickets {
			count[t.Status]++
		}
		var parts []string
		for status, n := range count {
			parts = append(parts, fmt.Sprintf("%d %s", n, status))
		}
		sort.Strings(parts)
		mcphttp.LogAfter(ctx, "info", "tickets", "counted tickets")
		return mcp.TextResult(strings.Join(parts, ", ")), nil
	}))
	return s
}

// lookupTool is a tool of the one string argument arg that looks the ticket
// system up: it reports that it does (a progress notification, when the
// request asked for them), then answers with look's result for the
// argument's value. Arguments without arg get the tool error needs.
func lookupTool(arg, needs string, look func(ctx context.Context, value string) *mcp.CallToolResult) mcpserver.ToolFunc {
	return func(ctx context.Context, _ *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		v, ok := mcpserver.StringArgs(args, arg)
		if !ok {
			return mcp.ToolError("%s", needs), nil
		}
		mcphttp.Progress(ctx, 1, 2, "looking up the ticket system")
		return look(ctx, v[0]), nil
	}
}

// searchTickets is search's answer: the tickets whose subject contains
// query, one a line.
func searchTickets(ctx context.Context, query string) *mcp.CallToolResult {
	q := strings.ToLower(query)
	var hits []string
	for _, t := range tickets {
		if strings.Contains(strings.ToLower(t.Subject), q) {
			hits = append(hits, t.line())
		}
	}
	mcphttp.LogAfter(ctx, "info", "tickets", fmt.Sprintf("search for %q matched %d ticket(s)", query, len(hits)))
	if len(hits) == 0 {
		return mcp.TextResult(fmt.Sprintf("No ticket mentions %q.", query))
	}
	return mcp.TextResult(strings.Join(hits, "\n"))
}

// getTicket is get_ticket's answer: the ticket id, as a line and as
// structured content.
func getTicket(ctx context.Context, id string) *mcp.CallToolResult {
	for _, t := range tickets {
		if t.ID == id {
			mcphttp.LogAfter(ctx, "info", "tickets", "read ticket "+t.ID)
			return &mcp.CallToolResult{
				Content:           []mcp.Content{mcp.TextContent(t.line())},
				StructuredContent: t,
			}
		}
	}
	return mcp.ToolError("There is no ticket %q; ids look like \"T-101\".", id)
}

// Handler returns the ticket system's HTTP handler: the MCP endpoint at
// Path, tool calls answered as event streams, everything else as JSON.
func Handler(log func(format string, args ...any)) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, &mcphttp.Handler{
		Server:      New(),
		EventStream: func(method string) bool { return method == mcp.MethodToolsCall },
		Log:         log,
	})
	return mux
}
