// Package mcphost mounts several MCP servers behind one tool namespace, as
// an agent's host does: each server under an alias from our configuration,
// each tool as mcp__alias__tool, found again through a table, called by
// its original name, and every server inside its own failure boundary. A
// server that fails costs its own tools, never the others', and the user is
// told; a call that fails is a failed tool result, never an error. Every
// remote tool needs approval, whatever its annotations claim, and every
// result is cut to the shared 8000-character budget.
package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpclient"
)

// DefaultTimeout bounds each request to a server whose configuration sets
// no timeoutMs.
const DefaultTimeout = 30 * time.Second

// Options tune a Host.
type Options struct {
	// Timeout bounds each request to a server without its own; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// ClientInfo is what the host's clients say they are; nil means the
	// client's default.
	ClientInfo *mcp.Implementation
	// Log receives notes: servers' stderr lines, dropped messages. Each
	// note names its server. Nil drops them.
	Log func(alias, note string)
	// Approve is asked before every call of a tool that needs approval,
	// which every remote tool does. Nil refuses them all.
	Approve func(t *Tool, arguments json.RawMessage) bool
	// StopGrace is how long Close lets a stdio server exit by itself,
	// once its stdin is closed, before it kills it; 0 means the
	// transport's default (mcpclient.Command.Grace).
	StopGrace time.Duration
}

// Tool is one tool in the host's namespace.
type Tool struct {
	// Name is the name a model sees and calls: mcp__alias__tool.
	Name string
	// Server is the alias of the server the tool belongs to.
	Server string
	// Original is the tool's name as its server listed it, the name sent
	// back to the server on a call.
	Original string
	// Description is the server's description followed by where the tool
	// comes from, since a model chooses tools by their descriptions.
	Description string
	// InputSchema is the tool's input schema, as listed.
	InputSchema json.RawMessage
	// Annotations are the server's claims about the tool. They are shown,
	// never believed: a server cannot grant itself trust.
	Annotations *mcp.ToolAnnotations
	// NeedsApproval is true for every remote tool.
	NeedsApproval bool
}

// ClaimsReadOnly reports whether the server says the tool only reads. The
// claim changes nothing; it is for display.
func (t *Tool) ClaimsReadOnly() bool {
	return t.Annotations != nil && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
}

// ServerStatus says how a server's discovery went.
type ServerStatus struct {
	Alias     string
	Transport string // "stdio" or "http"
	// Tools counts the server's tools in the namespace.
	Tools int
	// Err is why the server is unavailable; nil when it is up.
	Err error
}

// Host is a set of mounted servers. Its methods are safe for concurrent
// use. The namespace is built once, by Start.
type Host struct {
	opts    Options
	servers []*mounted
	tools   []*Tool
	byName  map[string]*Tool
	// skipped notes tools left out of the namespace, and why.
	skipped []string
}

type mounted struct {
	cfg    ServerConfig
	client *mcpclient.Client
	err    error
	tools  int
}

// Start connects to every server of cfg at once, each inside its own
// failure boundary, and builds the namespace in the configuration's order.
// It fails only for a configuration that cannot work (one with a
// duplicate alias, say); a server that cannot be reached is recorded,
// its tools are missing, and the others carry on.
func Start(ctx context.Context, cfg *Config, opts Options) (*Host, error) {
	if cfg == nil || len(cfg.Servers) == 0 {
		return nil, errors.New("no servers to mount")
	}
	seen := map[string]bool{}
	for _, s := range cfg.Servers {
		if err := checkAlias(s.Alias); err != nil {
			return nil, err
		}
		if seen[s.Alias] {
			return nil, fmt.Errorf("the alias %q is used twice; each server needs its own alias, since it prefixes the server's tool names", s.Alias)
		}
		seen[s.Alias] = true
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	h := &Host{opts: opts, byName: map[string]*Tool{}}
	lists := make([][]mcp.Tool, len(cfg.Servers))
	var wg sync.WaitGroup
	for i, s := range cfg.Servers {
		m := &mounted{cfg: s}
		h.servers = append(h.servers, m)
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], m.err = h.discover(ctx, m)
		}()
	}
	wg.Wait()
	for i, m := range h.servers {
		if m.err == nil {
			h.add(m, lists[i])
		}
	}
	return h, nil
}

// discover connects to one server and lists its tools. A panic in there
// is that server's failure, not the host's.
func (h *Host) discover(ctx context.Context, m *mounted) (tools []mcp.Tool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the host failed while discovering it: %v", p)
		}
		if err != nil && m.client != nil {
			m.client.Close()
			m.client = nil
		}
	}()
	timeout := m.cfg.Timeout
	if timeout <= 0 {
		timeout = h.opts.Timeout
	}
	alias := m.cfg.Alias
	copts := mcpclient.Options{Timeout: timeout, ClientInfo: h.opts.ClientInfo}
	var t mcpclient.Transport
	if m.cfg.URL != "" {
		t = &mcpclient.HTTP{URL: m.cfg.URL}
	} else {
		t = mcpclient.Command{
			Starter: proc.Command{Path: m.cfg.Command, Args: m.cfg.Args},
			Log:     func(line string) { h.log(alias, "stderr: "+line) },
			Grace:   h.opts.StopGrace,
		}
	}
	if h.opts.Log != nil {
		copts.Logf = func(format string, args ...any) { h.log(alias, fmt.Sprintf(format, args...)) }
	}
	c, err := mcpclient.Connect(ctx, t, copts)
	if err != nil {
		return nil, err
	}
	m.client = c
	return c.ListTools(ctx)
}

func (h *Host) log(alias, note string) {
	if h.opts.Log != nil {
		h.opts.Log(alias, note)
	}
}

// add puts a server's tools in the namespace. A name that is taken already
// (two tools that differ only in characters the namespace replaces) gets
// the digest form that cut names get; if even that is taken, the tool is
// left out and noted.
func (h *Host) add(m *mounted, tools []mcp.Tool) {
	alias := m.cfg.Alias
	for _, t := range tools {
		name := LocalName(alias, t.Name)
		if h.byName[name] != nil {
			name = hashedName(sanitize("mcp__"+alias+"__"+t.Name), alias, t.Name)
		}
		if other := h.byName[name]; other != nil {
			h.skipped = append(h.skipped, fmt.Sprintf("tool %q of server %s is left out: its name %s is taken by tool %q of server %s", t.Name, alias, name, other.Original, other.Server))
			continue
		}
		desc := strings.TrimSpace(t.Description)
		source := fmt.Sprintf("(Tool %q of MCP server %q.)", t.Name, alias)
		if desc != "" {
			desc += " " + source
		} else {
			desc = source
		}
		tool := &Tool{
			Name:          name,
			Server:        alias,
			Original:      t.Name,
			Description:   desc,
			InputSchema:   t.InputSchema,
			Annotations:   t.Annotations,
			NeedsApproval: true, // remote: annotations are the server's word, not ours
		}
		h.byName[name] = tool
		h.tools = append(h.tools, tool)
		m.tools++
	}
}

// Tools returns the namespace, in configuration order, then each server's
// order.
func (h *Host) Tools() []*Tool { return append([]*Tool(nil), h.tools...) }

// Lookup finds a tool by the name a model sees. It is the only way back
// from a name to its server and original name.
func (h *Host) Lookup(name string) (*Tool, bool) {
	t, ok := h.byName[name]
	return t, ok
}

// Servers says how each server's discovery went, in configuration order.
func (h *Host) Servers() []ServerStatus {
	out := make([]ServerStatus, len(h.servers))
	for i, m := range h.servers {
		out[i] = ServerStatus{Alias: m.cfg.Alias, Transport: m.cfg.Transport(), Tools: m.tools, Err: m.err}
	}
	return out
}

// Notices are the sentences a user must see about the namespace: every
// server that is unavailable, with why, and every tool left out.
func (h *Host) Notices() []string {
	var out []string
	for _, m := range h.servers {
		if m.err != nil {
			out = append(out, fmt.Sprintf("Server %s (%s) is unavailable, so its tools are missing: %v", m.cfg.Alias, m.cfg.Transport(), m.err))
		}
	}
	return append(out, h.skipped...)
}

// Result is what a tool call gives the model: text, and whether it failed.
type Result struct {
	Text    string
	IsError bool
	// Cut counts the characters cut from the text to fit MaxResultChars.
	Cut int
	// Notifications counts those that came with the call.
	Notifications int
}

// Call runs the tool a model names, with arguments as JSON (nil for none).
// It never returns an error: an unknown tool, a refused approval, a dead
// server, a timeout or a protocol error each become a failed result that
// says what happened, so the model can change course.
func (h *Host) Call(ctx context.Context, name string, arguments json.RawMessage) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{Text: fmt.Sprintf("The host failed while calling %s: %v", name, p), IsError: true}
		}
		res.Text, res.Cut = Truncate(res.Text)
	}()
	t, ok := h.byName[name]
	if !ok {
		return Result{Text: h.unknown(name), IsError: true}
	}
	if t.NeedsApproval && (h.opts.Approve == nil || !h.opts.Approve(t, arguments)) {
		return Result{Text: fmt.Sprintf("The user did not approve the call of %s (tool %q of server %s); it was not run.", t.Name, t.Original, t.Server), IsError: true}
	}
	m := h.server(t.Server)
	var args any
	if len(arguments) > 0 {
		args = arguments
	}
	// Progress is asked for, so a user can be shown how a slow call goes.
	r, err := m.client.CallTool(ctx, t.Original, args, mcpclient.WithProgress())
	if err != nil {
		return Result{Text: fmt.Sprintf("Calling tool %q of server %s failed: %v", t.Original, t.Server, err), IsError: true}
	}
	return Result{Text: r.Text(), IsError: r.IsError, Notifications: r.Reply.NotificationCount}
}

func (h *Host) server(alias string) *mounted {
	for _, m := range h.servers {
		if m.cfg.Alias == alias {
			return m
		}
	}
	return nil
}

// unknown explains a name that is not in the namespace, naming the servers
// whose tools are missing.
func (h *Host) unknown(name string) string {
	msg := fmt.Sprintf("No tool is named %q.", name)
	var down []string
	for _, m := range h.servers {
		if m.err != nil {
			down = append(down, fmt.Sprintf("%s (%v)", m.cfg.Alias, m.err))
		}
	}
	if len(down) > 0 {
		sort.Strings(down)
		msg += " These servers are unavailable and their tools are missing: " + strings.Join(down, "; ") + "."
	}
	return msg
}

// Close ends every connection at once: stdio servers have their stdin
// closed, then are killed if they linger, each on its own clock.
func (h *Host) Close() error {
	errs := make([]error, len(h.servers))
	var wg sync.WaitGroup
	for i, m := range h.servers {
		if m.client == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.client.Close(); err != nil {
				errs[i] = fmt.Errorf("closing %s: %w", m.cfg.Alias, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
