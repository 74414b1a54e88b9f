package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/mcp"
)

// InputRequiredError is the answer of a server that needs more from the
// client before it can finish (resultType "input_required"). This client
// does not fill such requests; it reports them rather than hand an
// unfinished result on as if the work were done.
type InputRequiredError struct {
	// Result is the whole result, with its inputRequests and requestState.
	Result json.RawMessage
}

func (e *InputRequiredError) Error() string {
	return `the server needs input before it can finish (resultType "input_required"), which this client does not provide`
}

// checkResultType applies the rule of 2026-07-28: a result is an object
// whose resultType is "complete" or absent (a legacy server); any other
// value is not a finished answer.
func checkResultType(result json.RawMessage) error {
	var r struct {
		ResultType *string `json:"resultType"`
	}
	if b := bytes.TrimSpace(result); len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &r) != nil {
		return fmt.Errorf("the result is %s, not a JSON object", shorten(result, 40))
	}
	switch {
	case r.ResultType == nil || *r.ResultType == mcp.ResultComplete:
		return nil
	case *r.ResultType == mcp.ResultInputRequired:
		return &InputRequiredError{Result: result}
	}
	return fmt.Errorf("the result has resultType %q, which this client does not know; only \"complete\" is a finished answer", *r.ResultType)
}

// maxPages bounds a paginated listing, so a server that never stops handing
// out cursors cannot keep a client listing forever.
const maxPages = 1000

// ListTools asks for every tool the server has: it sends tools/list again
// with each nextCursor, passed back byte for byte, until a page has none.
// Page sizes prove nothing; only a missing nextCursor ends the list.
func (c *Client) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	var tools []mcp.Tool
	var cursor json.RawMessage
	seen := map[string]bool{}
	for page := 1; ; page++ {
		var params any
		if cursor != nil {
			params = struct {
				Cursor json.RawMessage `json:"cursor"`
			}{cursor}
		}
		reply, err := c.Call(ctx, mcp.MethodToolsList, params)
		if err != nil {
			return tools, fmt.Errorf("listing tools, page %d: %w", page, err)
		}
		var r struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor json.RawMessage   `json:"nextCursor"`
		}
		if err := json.Unmarshal(reply.Result, &r); err != nil {
			return tools, fmt.Errorf("listing tools, page %d: the result does not hold a tools array: %w", page, err)
		}
		if r.Tools == nil {
			return tools, fmt.Errorf("listing tools, page %d: the result has no \"tools\" array", page)
		}
		for i, raw := range r.Tools {
			var t mcp.Tool
			if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
				return tools, fmt.Errorf("listing tools, page %d: tool %d is not a tool with a string \"name\" (%v)", page, i, err)
			}
			tools = append(tools, t)
		}
		next := bytes.TrimSpace(r.NextCursor)
		if len(next) == 0 || bytes.Equal(next, []byte("null")) {
			return tools, nil
		}
		var s string
		if next[0] != '"' || json.Unmarshal(next, &s) != nil {
			return tools, fmt.Errorf("listing tools, page %d: nextCursor is %s; a cursor is a string", page, shorten(next, 40))
		}
		if seen[string(next)] {
			return tools, fmt.Errorf("listing tools, page %d: the server handed out cursor %s a second time; stopping rather than loop", page, shorten(next, 40))
		}
		if page >= maxPages {
			return tools, fmt.Errorf("listing tools: the server was still handing out cursors after %d pages", maxPages)
		}
		seen[string(next)] = true
		cursor = next
	}
}

// Content is one block of a tool result.
type Content struct {
	Type     string          `json:"type"`
	Text     string          `json:"text,omitempty"`
	MimeType string          `json:"mimeType,omitempty"`
	Data     string          `json:"data,omitempty"`
	URI      string          `json:"uri,omitempty"`
	Resource json.RawMessage `json:"resource,omitempty"`
}

// ToolResult is a finished tools/call.
type ToolResult struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
	// Structured is the structuredContent, when there is one.
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	// Reply is the exchange it came from: its id and notifications.
	Reply *Reply `json:"-"`
}

// Text joins the result's text blocks with newlines, and describes the
// blocks that are not text in brackets.
func (r *ToolResult) Text() string {
	var parts []string
	for _, b := range r.Content {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image", "audio":
			parts = append(parts, fmt.Sprintf("[%s block, %s, %d bytes of base64]", b.Type, b.MimeType, len(b.Data)))
		case "resource_link":
			parts = append(parts, fmt.Sprintf("[link to %s]", b.URI))
		case "resource":
			var res struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			}
			if json.Unmarshal(b.Resource, &res) == nil && res.Text != "" {
				parts = append(parts, res.Text)
			} else {
				parts = append(parts, fmt.Sprintf("[resource %s]", res.URI))
			}
		default:
			parts = append(parts, fmt.Sprintf("[a %q block this client does not know]", b.Type))
		}
	}
	return strings.Join(parts, "\n")
}

// CallTool calls the tool name, exactly as the server listed it, with
// arguments (nil for none). A tool that ran and failed is a result with
// IsError set, not an error.
func (c *Client) CallTool(ctx context.Context, name string, arguments any, opts ...CallOption) (*ToolResult, error) {
	params := struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments,omitempty"`
	}{name, arguments}
	reply, err := c.Call(ctx, mcp.MethodToolsCall, params, opts...)
	if err != nil {
		return nil, err
	}
	var r ToolResult
	if err := json.Unmarshal(reply.Result, &r); err != nil {
		return nil, fmt.Errorf("tools/call %s: the result is not a tool result: %w", name, err)
	}
	if r.Content == nil {
		return nil, fmt.Errorf("tools/call %s: the result has no \"content\" array", name)
	}
	r.Reply = reply
	return &r, nil
}

// Discovery is what server/discover says about a server.
type Discovery struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions,omitempty"`
	// ServerInfo is the server's self-description from the result's _meta;
	// nothing checks it.
	ServerInfo *mcp.Implementation `json:"-"`
}

// Discover asks the server which revisions and capabilities it has.
func (c *Client) Discover(ctx context.Context) (*Discovery, error) {
	reply, err := c.Call(ctx, mcp.MethodDiscover, nil)
	if err != nil {
		return nil, err
	}
	var d Discovery
	var meta struct {
		Meta struct {
			ServerInfo *mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(reply.Result, &d); err != nil {
		return nil, fmt.Errorf("server/discover: %w", err)
	}
	if json.Unmarshal(reply.Result, &meta) == nil {
		d.ServerInfo = meta.Meta.ServerInfo
	}
	if len(d.SupportedVersions) == 0 {
		return &d, errors.New("server/discover: the result names no supportedVersions")
	}
	return &d, nil
}
