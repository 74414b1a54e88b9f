// Package helpdesk is the reference server of lesson 2, "JSON-RPC on the
// wire": a stateless MCP 2026-07-28 server for the support desk of a company
// that sells booking software to gyms and studios. It answers
// server/discover, lists two tools one per page, and looks up tickets and
// customers from the lesson's data files. It accepts the legacy initialize
// handshake as well.
package helpdesk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/safefile"
	"github.com/mcplab/mcplab/lab/wire"
)

// Info is the helpdesk's name and version, as serverInfo says them.
var Info = mcp.Implementation{Name: "helpdesk", Version: "0.1.0"}

// Instructions is the sentence server/discover gives a model.
const Instructions = "Support desk for gym and studio booking software: look up a ticket by its number, or a customer by their id."

// The files the data is read from, in the data folder of lesson 2.
const (
	TicketsFile   = "tickets.json"
	CustomersFile = "customers.json"
)

// Ticket is one support ticket.
type Ticket struct {
	ID         string `json:"id"`
	CustomerID string `json:"customer_id"`
	Subject    string `json:"subject"`
	Status     string `json:"status"`
	Priority   string `json:"priority"`
	Opened     string `json:"opened"`
	Updated    string `json:"updated"`
	Summary    string `json:"summary"`
}

// Customer is one customer of the company.
type Customer struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Business      string `json:"business"`
	City          string `json:"city"`
	Plan          string `json:"plan"`
	Email         string `json:"email"`
	CustomerSince string `json:"customer_since"`
}

// Data is what the helpdesk knows: tickets and customers by id.
type Data struct {
	Tickets   map[string]Ticket
	Customers map[string]Customer
}

// LoadData reads tickets.json and customers.json from fsys and checks that
// every ticket names a customer there is.
func LoadData(fsys fs.FS) (*Data, error) {
	var tickets []Ticket
	var customers []Customer
	if err := readJSON(fsys, TicketsFile, &tickets); err != nil {
		return nil, err
	}
	if err := readJSON(fsys, CustomersFile, &customers); err != nil {
		return nil, err
	}
	d := &Data{Tickets: map[string]Ticket{}, Customers: map[string]Customer{}}
	for _, c := range customers {
		if c.ID == "" {
			return nil, fmt.Errorf("%s: a customer has no id", CustomersFile)
		}
		if _, dup := d.Customers[c.ID]; dup {
			return nil, fmt.Errorf("%s: customer %s appears twice", CustomersFile, c.ID)
		}
		d.Customers[c.ID] = c
	}
	for _, t := range tickets {
		if t.ID == "" {
			return nil, fmt.Errorf("%s: a ticket has no id", TicketsFile)
		}
		if _, dup := d.Tickets[t.ID]; dup {
			return nil, fmt.Errorf("%s: ticket %s appears twice", TicketsFile, t.ID)
		}
		if _, ok := d.Customers[t.CustomerID]; !ok {
			return nil, fmt.Errorf("%s: ticket %s names customer %q, who is not in %s", TicketsFile, t.ID, t.CustomerID, CustomersFile)
		}
		d.Tickets[t.ID] = t
	}
	return d, nil
}

// MaxDataFile bounds each of the helpdesk's data files, which a teacher's
// lesson folder may hold.
const MaxDataFile = 8 << 20

func readJSON(fsys fs.FS, name string, v any) error {
	if info, err := fs.Stat(fsys, name); err == nil && !info.Mode().IsRegular() {
		return fmt.Errorf("reading the helpdesk's data: %s is not a plain file", name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("reading the helpdesk's data: %w", err)
	}
	defer f.Close()
	b, over, err := safefile.ReadAtMost(f, MaxDataFile)
	if err != nil {
		return fmt.Errorf("reading the helpdesk's data: %s: %w", name, err)
	}
	if over {
		return fmt.Errorf("reading the helpdesk's data: %s is over %d MiB", name, MaxDataFile>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("reading the helpdesk's data: %s: %w", name, err)
	}
	return nil
}

// The tools, as tools/list shows them.
var (
	GetTicket = mcp.Tool{
		Name:        "get_ticket",
		Title:       "Get a support ticket",
		Description: "Returns one support ticket by its number: subject, status, priority, dates, a summary, and the customer who opened it.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ticket_id":{"type":"string","description":"The ticket's number, as a string, such as \"2318\"."}},"required":["ticket_id"],"additionalProperties":false}`),
		Annotations: readOnly("Get a support ticket"),
	}
	GetCustomer = mcp.Tool{
		Name:        "get_customer",
		Title:       "Get a customer",
		Description: "Returns one customer by their id (such as \"C-104\"): name, business, city, plan and email.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"customer_id":{"type":"string","description":"The customer's id, such as \"C-104\"."}},"required":["customer_id"],"additionalProperties":false}`),
		Annotations: readOnly("Get a customer"),
	}
)

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: new(true), OpenWorldHint: new(false)}
}

// New returns the helpdesk server over data. Its tools/list pages hold one
// tool each, so that a client sees nextCursor at work, and it answers each
// line before it reads the next, so its answers come in the order asked.
// The data never changes while it serves, so every answer is built once,
// here, and shared.
func New(data *Data) *mcpserver.Server {
	s := &mcpserver.Server{
		Info:           Info,
		Instructions:   Instructions,
		LegacyVersions: mcp.LegacyVersions,
		ToolsPageSize:  1,
		MaxInFlight:    1,
		CacheScope:     mcp.CachePublic,
	}
	tickets := make(map[string]*mcp.CallToolResult, len(data.Tickets))
	for id, t := range data.Tickets {
		tickets[id] = ticketResult(t, data.Customers[t.CustomerID])
	}
	customers := make(map[string]*mcp.CallToolResult, len(data.Customers))
	for id, c := range data.Customers {
		customers[id] = customerResult(c)
	}
	s.AddTool(GetTicket, lookup(tickets, "get_ticket", "ticket_id", "2318",
		"There is no ticket %q. Ticket numbers are digits only, such as \"2318\"; check the number with the customer."))
	s.AddTool(GetCustomer, lookup(customers, "get_customer", "customer_id", "C-104",
		"There is no customer %q. Customer ids look like \"C-104\"; a ticket names its customer."))
	return s
}

// lookup is a tool that answers with the result built ahead for the id
// its string argument arg names (example shows one, for the error a bad
// argument gets), or with the tool error notFound (a format of one %q,
// the id) for an id it does not know.
func lookup(results map[string]*mcp.CallToolResult, tool, arg, example, notFound string) mcpserver.ToolFunc {
	return func(_ context.Context, _ *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		id, bad := stringArg(args, tool, arg, example)
		if bad != nil {
			return bad, nil
		}
		if r, ok := results[id]; ok {
			return r, nil
		}
		return mcp.ToolError(notFound, id), nil
	}
}

// ticketResult is get_ticket's answer for one ticket: a summary to read and
// the ticket with its customer as structured content.
func ticketResult(t Ticket, c Customer) *mcp.CallToolResult {
	structured, err := wire.MarshalCompact(struct {
		Ticket
		Customer Customer `json:"customer"`
	}{t, c})
	if err != nil {
		panic(fmt.Sprintf("helpdesk: encoding ticket %s: %v", t.ID, err)) // plain strings always encode
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent(fmt.Sprintf(
			"Ticket %s (%s, %s priority): %s\nCustomer: %s, %s (%s), %s plan\nOpened %s, last update %s\n%s",
			t.ID, t.Status, t.Priority, t.Subject, c.Name, c.Business, c.ID, c.Plan, t.Opened, t.Updated, t.Summary))},
		StructuredContent: structured,
	}
}

// customerResult is get_customer's answer for one customer.
func customerResult(c Customer) *mcp.CallToolResult {
	structured, err := wire.MarshalCompact(c)
	if err != nil {
		panic(fmt.Sprintf("helpdesk: encoding customer %s: %v", c.ID, err))
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent(fmt.Sprintf("Customer %s: %s, %s in %s, %s plan since %s, %s",
			c.ID, c.Name, c.Business, c.City, c.Plan, c.CustomerSince, c.Email))},
		StructuredContent: structured,
	}
}

// stringArg reads one required string argument. A missing or mistyped one
// is a failure of the tool, reported in the result for the model to fix
// (not a protocol error).
func stringArg(args json.RawMessage, tool, name, example string) (string, *mcp.CallToolResult) {
	raw, ok := mcpserver.Argument(args, name)
	if !ok {
		return "", mcp.ToolError("%s needs the argument %s, a string such as %q.", tool, name, example)
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", mcp.ToolError("%s's argument %s must be a string such as %q, not %s.", tool, name, example, strings.TrimSpace(string(raw)))
	}
	return v, nil
}
