// Package contract is the command contract a client lesson holds a client
// to (lessons/03-wiring-up-mcp/CONTRACT.md), served over the lab's MCP
// host: one JSON command a line in, {"command":"list_tools"} or
// {"command":"call_tool","name":...,"arguments":{...}}, and exactly one
// JSON answer a line out, in the same order, until the input ends.
package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcplab/mcplab/lab/mcphost"
	"github.com/mcplab/mcplab/lab/wire"
)

// Host is what the contract needs of a set of mounted servers;
// *mcphost.Host is one.
type Host interface {
	// Tools is the namespace, in the configuration's order.
	Tools() []*mcphost.Tool
	// Servers says how each server's discovery went.
	Servers() []mcphost.ServerStatus
	// Call calls a tool by its namespaced name.
	Call(ctx context.Context, name string, arguments json.RawMessage) mcphost.Result
}

// Tool is one tool in a list_tools answer.
type Tool struct {
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	NeedsApproval bool            `json:"needsApproval"`
	InputSchema   json.RawMessage `json:"inputSchema,omitempty"`
}

// FailedServer is a server a list_tools answer says could not be reached,
// and why.
type FailedServer struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

// Tools is the answer to list_tools: every tool of the servers reached and
// every server that was not. Neither list is ever null.
type Tools struct {
	Tools         []Tool         `json:"tools"`
	FailedServers []FailedServer `json:"failedServers"`
}

// CallResult is the answer to call_tool: the tool's text, and whether it
// is a tool error.
type CallResult struct {
	Text    string `json:"text"`
	IsError bool   `json:"isError"`
}

// Error is the answer to a command that cannot be run: a line too long,
// not a command object, an unknown command, bad arguments.
type Error struct {
	Error string `json:"error"`
}

// Answer runs one command line on h and returns its answer: a Tools, a
// CallResult or an Error.
func Answer(ctx context.Context, h Host, line []byte) any {
	var cmd struct {
		Command   string          `json:"command"`
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cmd); err != nil {
		return Error{fmt.Sprintf("the command is not a JSON object with command, name and arguments: %v", err)}
	}
	switch cmd.Command {
	case "list_tools":
		return listTools(h)
	case "call_tool":
		if cmd.Name == nil {
			return Error{`call_tool needs "name", the tool's namespaced name`}
		}
		if a := bytes.TrimSpace(cmd.Arguments); len(a) > 0 && a[0] != '{' && !bytes.Equal(a, wire.Null) {
			return Error{`"arguments" must be an object`}
		}
		r := h.Call(ctx, *cmd.Name, cmd.Arguments)
		return CallResult{r.Text, r.IsError}
	case "":
		return Error{`the command has no "command"; use "list_tools" or "call_tool"`}
	}
	return Error{fmt.Sprintf("unknown command %q; use \"list_tools\" or \"call_tool\"", cmd.Command)}
}

// listTools is the answer to list_tools.
func listTools(h Host) Tools {
	ans := Tools{Tools: []Tool{}, FailedServers: []FailedServer{}}
	for _, t := range h.Tools() {
		ans.Tools = append(ans.Tools, Tool{t.Name, t.Description, t.NeedsApproval, t.InputSchema})
	}
	for _, s := range h.Servers() {
		if s.Err != nil {
			ans.FailedServers = append(ans.FailedServers, FailedServer{s.Alias, s.Err.Error()})
		}
	}
	return ans
}
