package main

// This file is lesson 2's help desk, finished: the part of the server that
// knows nothing of HTTP. It reads one JSON-RPC message and returns its
// answer, as it did for one line of stdin. main.go carries it over HTTP.

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// The protocol revision this server speaks.
const protocolVersion = "2026-07-28"

// The JSON-RPC error codes of the help desk. -32020 and -32022 are MCP's own.
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeMethodNotFound     = -32601
	codeInvalidParams      = -32602
	codeHeaderMismatch     = -32020
	codeUnsupportedVersion = -32022
)

// The _meta keys every 2026-07-28 request carries in its params.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// serverInfo is who this server says it is.
var serverInfo = map[string]string{"name": "helpdesk-starter", "version": "0.1.0"}

// instructions is the sentence server/discover gives a model.
const instructions = "Support desk for gym and studio booking software: look up a ticket by its number, or a customer by their id."

// The help desk's data, copies of lesson 2's, built into the program so
// that it finds them whatever folder it is started from.
var (
	//go:embed tickets.json
	ticketsJSON []byte
	//go:embed customers.json
	customersJSON []byte
)

// message is one incoming JSON-RPC message, decoded. ID is nil when it has
// no id member at all (a notification).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// response is one outgoing message. An empty ID leaves the id member out.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is the error member of a response.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// ticket is one support ticket of tickets.json.
type ticket struct {
	ID         string `json:"id"`
	CustomerID string `json:"customer_id"`
	Subject    string `json:"subject"`
	Status     string `json:"status"`
	Priority   string `json:"priority"`
	Opened     string `json:"opened"`
	Updated    string `json:"updated"`
	Summary    string `json:"summary"`
}

// customer is one customer of customers.json.
type customer struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Business      string `json:"business"`
	City          string `json:"city"`
	Plan          string `json:"plan"`
	Email         string `json:"email"`
	CustomerSince string `json:"customer_since"`
}

// tools are the help desk's tools, as tools/list shows them, one a page.
var tools = []map[string]any{
	{
		"name":        "get_ticket",
		"title":       "Get a support ticket",
		"description": "Returns one support ticket by its number: subject, status, priority, dates, a summary, and the customer who opened it.",
		"inputSchema": json.RawMessage(`{"type":"object","properties":{"ticket_id":{"type":"string","description":"The ticket's number, as a string, such as \"2318\"."}},"required":["ticket_id"],"additionalProperties":false}`),
		"annotations": map[string]any{"title": "Get a support ticket", "readOnlyHint": true, "openWorldHint": false},
	},
	{
		"name":        "get_customer",
		"title":       "Get a customer",
		"description": "Returns one customer by their id (such as \"C-104\"): name, business, city, plan and email.",
		"inputSchema": json.RawMessage(`{"type":"object","properties":{"customer_id":{"type":"string","description":"The customer's id, such as \"C-104\"."}},"required":["customer_id"],"additionalProperties":false}`),
		"annotations": map[string]any{"title": "Get a customer", "readOnlyHint": true, "openWorldHint": false},
	},
}

// desk is what the help desk knows.
type desk struct {
	tickets   map[string]ticket
	customers map[string]customer
	// TODO(lesson 4), part 5: statelessness.
	// The cursors handed out so far, each a random token standing for the
	// page it starts. Only this process knows them: a copy of the server
	// behind the same address (a load balancer sends each POST to either)
	// refuses a cursor the other copy made. Drop this table: make the
	// cursor say which page it starts (newCursor) and read the page back
	// from the cursor alone (pageOf), so that any copy can serve it.
	// Fixes stateless.any-copy.
	mu      sync.Mutex
	cursors map[string]int
}

// newDesk reads the help desk's data.
func newDesk() (*desk, error) {
	var ts []ticket
	if err := json.Unmarshal(ticketsJSON, &ts); err != nil {
		return nil, fmt.Errorf("tickets.json: %w", err)
	}
	var cs []customer
	if err := json.Unmarshal(customersJSON, &cs); err != nil {
		return nil, fmt.Errorf("customers.json: %w", err)
	}
	d := &desk{tickets: map[string]ticket{}, customers: map[string]customer{}, cursors: map[string]int{}}
	for _, t := range ts {
		d.tickets[t.ID] = t
	}
	for _, c := range cs {
		d.customers[c.ID] = c
	}
	return d, nil
}

// parse decodes one message. A body that is not JSON, or JSON that is not
// a request or a notification, gets the error response to send back.
func parse(body []byte) (*message, *response) {
	if !json.Valid(body) {
		return nil, errorResponse(nil, codeParseError, "Parse error: the body is not valid JSON", nil)
	}
	var msg message
	if err := json.Unmarshal(body, &msg); err != nil || msg.JSONRPC != "2.0" || msg.Method == "" {
		return nil, errorResponse(usableID(msg.ID), codeInvalidRequest, `Invalid Request: a request is an object with "jsonrpc": "2.0", a "method" string and an "id"`, nil)
	}
	if msg.ID != nil && usableID(msg.ID) == nil {
		// Neither a request (its id is null, true or a fraction) nor a
		// notification (it has an id member).
		return nil, errorResponse(nil, codeInvalidRequest, "Invalid Request: an id is a string or an integer, never null", nil)
	}
	return &msg, nil
}

// answer is the help desk's response to one request.
func (d *desk) answer(msg *message) *response {
	if e := checkMeta(msg.Params); e != nil {
		return &response{ID: msg.ID, Error: e}
	}
	switch msg.Method {
	case "server/discover":
		return result(msg.ID, map[string]any{
			"supportedVersions": []string{protocolVersion},
			"capabilities":      map[string]any{"tools": map[string]any{}},
			"instructions":      instructions,
			"ttlMs":             3600000,
			"cacheScope":        "public",
		})
	case "tools/list":
		return d.listTools(msg)
	case "tools/call":
		return d.callTool(msg)
	}
	return errorResponse(msg.ID, codeMethodNotFound, "Method not found: "+msg.Method, nil)
}

// checkMeta checks the _meta of a 2026-07-28 request: both required keys,
// and a version this server speaks.
func checkMeta(params json.RawMessage) *rpcError {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		return &rpcError{Code: codeInvalidParams, Message: "Invalid params: params must be an object that holds _meta"}
	}
	var missing []string
	for _, key := range []string{metaProtocolVersion, metaClientCapabilities} {
		if _, ok := p.Meta[key]; !ok {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		return &rpcError{Code: codeInvalidParams, Message: "Invalid params: params._meta needs " + strings.Join(missing, " and "), Data: map[string]any{"missing": missing}}
	}
	var version string
	if json.Unmarshal(p.Meta[metaProtocolVersion], &version) != nil || version != protocolVersion {
		return &rpcError{Code: codeUnsupportedVersion, Message: "Unsupported protocol version",
			Data: map[string]any{"supported": []string{protocolVersion}, "requested": json.RawMessage(p.Meta[metaProtocolVersion])}}
	}
	return nil
}

// listTools answers tools/list, one tool a page.
func (d *desk) listTools(msg *message) *response {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	json.Unmarshal(msg.Params, &p)
	page := 0
	if p.Cursor != nil {
		var ok bool
		if page, ok = d.pageOf(*p.Cursor); !ok {
			return errorResponse(msg.ID, codeInvalidParams, fmt.Sprintf("Invalid cursor: %q is not a cursor this server gave out; list again without one", *p.Cursor), nil)
		}
	}
	res := map[string]any{"tools": tools[page : page+1], "ttlMs": 3600000, "cacheScope": "public"}
	if page+1 < len(tools) {
		res["nextCursor"] = d.newCursor(page + 1)
	}
	return result(msg.ID, res)
}

// newCursor hands out a fresh random token for the page that starts at
// tool number page, and remembers it (see part 5).
func (d *desk) newCursor(page int) string {
	b := make([]byte, 12)
	rand.Read(b)
	token := base64.RawURLEncoding.EncodeToString(b)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cursors[token] = page
	return token
}

// pageOf looks a cursor up among the ones this process handed out.
func (d *desk) pageOf(cursor string) (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	page, ok := d.cursors[cursor]
	return page, ok
}

// callTool answers tools/call. A call the tool cannot serve is a result
// with isError, for the model to read and fix; a tool that does not exist
// is a protocol error.
func (d *desk) callTool(msg *message) *response {
	var p struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(msg.Params, &p) != nil || p.Name == "" {
		return errorResponse(msg.ID, codeInvalidParams, "Invalid params: tools/call needs the name of a tool", nil)
	}
	switch p.Name {
	case "get_ticket":
		id, bad := stringArg(p.Arguments, p.Name, "ticket_id", "2318")
		if bad != nil {
			return result(msg.ID, bad)
		}
		t, ok := d.tickets[id]
		if !ok {
			return result(msg.ID, toolError(fmt.Sprintf("There is no ticket %s. Ticket numbers are digits only, such as \"2318\"; check the number with the customer.", quoteArg(id))))
		}
		c := d.customers[t.CustomerID]
		text := fmt.Sprintf("Ticket %s (%s, %s priority): %s\nCustomer: %s, %s (%s), %s plan\nOpened %s, last update %s\n%s",
			t.ID, t.Status, t.Priority, t.Subject, c.Name, c.Business, c.ID, c.Plan, t.Opened, t.Updated, t.Summary)
		return result(msg.ID, map[string]any{"content": textContent(text), "structuredContent": struct {
			ticket
			Customer customer `json:"customer"`
		}{t, c}})
	case "get_customer":
		id, bad := stringArg(p.Arguments, p.Name, "customer_id", "C-104")
		if bad != nil {
			return result(msg.ID, bad)
		}
		c, ok := d.customers[id]
		if !ok {
			return result(msg.ID, toolError(fmt.Sprintf("There is no customer %s. Customer ids look like \"C-104\"; a ticket names its customer.", quoteArg(id))))
		}
		text := fmt.Sprintf("Customer %s: %s, %s in %s, %s plan since %s, %s", c.ID, c.Name, c.Business, c.City, c.Plan, c.CustomerSince, c.Email)
		return result(msg.ID, map[string]any{"content": textContent(text), "structuredContent": c})
	}
	return errorResponse(msg.ID, codeInvalidParams, "Unknown tool: "+p.Name, nil)
}

// stringArg reads one required string argument; a missing or mistyped one
// is a failure of the tool, for the model to fix.
func stringArg(args map[string]json.RawMessage, tool, name, example string) (string, map[string]any) {
	raw, ok := args[name]
	if !ok {
		return "", toolError(fmt.Sprintf("%s needs the argument %s, a string such as %q.", tool, name, example))
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", toolError(fmt.Sprintf("%s's argument %s must be a string such as %q, not %s.", tool, name, example, bytes.TrimSpace(raw)))
	}
	return v, nil
}

// quoteArg quotes an argument for a tool's error text. A long one is cut:
// an answer that echoed a megabyte-long argument in full would cost the
// server and the model as much again.
func quoteArg(arg string) string {
	const max = 64
	if len(arg) <= max {
		return fmt.Sprintf("%q", arg)
	}
	return fmt.Sprintf("%q... (%d bytes in all)", arg[:max], len(arg))
}

func textContent(text string) []any {
	return []any{map[string]any{"type": "text", "text": text}}
}

// toolError is the result of a tool call that failed.
func toolError(text string) map[string]any {
	return map[string]any{"content": textContent(text), "isError": true}
}

// result is a complete 2026-07-28 result for request id: it says it is
// complete, and who answered.
func result(id json.RawMessage, r map[string]any) *response {
	r["resultType"] = "complete"
	r["_meta"] = map[string]any{metaServerInfo: serverInfo}
	return &response{ID: id, Result: r}
}

func errorResponse(id json.RawMessage, code int, message string, data any) *response {
	return &response{ID: id, Error: &rpcError{Code: code, Message: message, Data: data}}
}

// usableID returns id when it is a string or an integer, the only ids a
// response may copy, and else nothing.
func usableID(id json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return nil
	}
	switch n := v.(type) {
	case string:
		return id
	case float64:
		if n == float64(int64(n)) && !bytes.ContainsAny(id, ".eE") {
			return id
		}
	}
	return nil
}

// encode is a response as one compact line of JSON, without a newline.
func encode(r *response) []byte {
	r.JSONRPC = "2.0"
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(errorResponse(r.ID, -32603, "Internal error: "+err.Error(), nil))
	}
	return b
}
