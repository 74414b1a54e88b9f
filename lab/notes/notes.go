// Package notes is lesson 3's notes library: a stateless 2026-07-28 MCP
// server over stdio, built on lab/mcpserver, with three tools listed two to
// a page (so a client that reads only the first page misses one), a search
// that claims to be read only (so a client that trusts the claim skips the
// approval it owes), and one long note whose answer goes out in pieces,
// each read by the client before the next is written (so a client that
// splits each read on newlines breaks every time, not by luck).
package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/pipe"
)

// Info is how the server names itself.
var Info = mcp.Implementation{Name: "mcplab-notes", Title: "Notes library", Version: "1.0.0"}

// LongNoteID is the note whose text is LongNoteLength characters long.
const LongNoteID = "incident-log"

// LongNoteLength is the long note's length: over 8000, so a host cuts it,
// and with 16000 characters past the budget, so the host's sentence has
// five digits and the cut result comes to 8052 characters.
const LongNoteLength = 24000

// Note is one note.
type Note struct {
	ID    string
	Title string
	Text  string
}

// Library holds the notes. It is safe for concurrent use.
type Library struct {
	mu    sync.Mutex
	notes map[string]Note
	next  int
}

// NewLibrary returns the lesson's notes.
func NewLibrary() *Library {
	l := &Library{notes: map[string]Note{}}
	for _, n := range []Note{
		{"divide-by-zero", "Division by zero in the invoice totals", "The totals page divided by the number of lines, which is zero for an empty invoice. Guard the division and show 0.00 instead."},
		{"stdout-logs", "Logs on stdout broke the MCP server", "A print statement on stdout corrupted the protocol stream; the client reported a parse error. Server logs go to stderr only."},
		{"retry-budget", "Retry budget for the payment API", "Retry at most three times with exponential backoff starting at 200 ms; give up after 5 seconds in total."},
		{LongNoteID, "Incident log: the night the queue stalled", longNote()},
	} {
		l.notes[n.ID] = n
	}
	return l
}

// longNote builds the incident log, exactly LongNoteLength characters of
// numbered lines.
func longNote() string {
	var b strings.Builder
	for i := 1; b.Len() < LongNoteLength; i++ {
		fmt.Fprintf(&b, "%04d  checked queue depth, worker heartbeats and disk latency; nothing unusual yet.\n", i)
	}
	return b.String()[:LongNoteLength-1] + "."
}

// The tools, as tools/list shows them.
var (
	SearchTool = mcp.Tool{
		Name:        "search",
		Title:       "Search the notes",
		Description: "Finds notes whose title or text contains the query (case does not matter) and lists their ids and titles.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words to look for, such as \"division by zero\"."}},"required":["query"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: new(true)},
	}
	ReadTool = mcp.Tool{
		Name:        "read_note",
		Title:       "Read a note",
		Description: "Returns the full text of one note, by the id that search lists.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"The note's id, such as \"divide-by-zero\"."}},"required":["id"],"additionalProperties":false}`),
	}
	AddTool = mcp.Tool{
		Name:        "add_note",
		Title:       "Add a note",
		Description: "Stores a new note for as long as this server runs and returns its id.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"text":{"type":"string"}},"required":["title","text"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: new(false), DestructiveHint: new(false)},
	}
)

// New returns the notes server over lib.
func New(lib *Library) *mcpserver.Server {
	s := &mcpserver.Server{
		Info:          Info,
		Instructions:  "A library of engineering notes: search them, read one, or add one.",
		ToolsPageSize: 2,
		CacheScope:    mcp.CachePublic,
	}
	s.AddTool(SearchTool, mcpserver.ToolFunc(func(_ context.Context, _ *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		v, ok := mcpserver.StringArgs(args, "query")
		if !ok {
			return mcp.ToolError("search needs the argument query, a string such as \"division by zero\"."), nil
		}
		return lib.search(v[0]), nil
	}))
	s.AddTool(ReadTool, mcpserver.ToolFunc(func(_ context.Context, _ *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		v, ok := mcpserver.StringArgs(args, "id")
		if !ok {
			return mcp.ToolError("read_note needs the argument id, a string such as %q; search lists the ids.", "divide-by-zero"), nil
		}
		lib.mu.Lock()
		n, ok := lib.notes[v[0]]
		lib.mu.Unlock()
		if !ok {
			return mcp.ToolError("There is no note %q; search lists the ids there are.", v[0]), nil
		}
		return mcp.TextResult(n.Text), nil
	}))
	s.AddTool(AddTool, mcpserver.ToolFunc(func(_ context.Context, _ *mcpserver.Request, args json.RawMessage) (*mcp.CallToolResult, error) {
		v, ok := mcpserver.StringArgs(args, "title", "text")
		if !ok {
			return mcp.ToolError("add_note needs the arguments title and text, both strings."), nil
		}
		lib.mu.Lock()
		lib.next++
		id := fmt.Sprintf("note-%d", lib.next)
		lib.notes[id] = Note{ID: id, Title: v[0], Text: v[1]}
		lib.mu.Unlock()
		return mcp.TextResult("Added note " + id + "."), nil
	}))
	return s
}

func (l *Library) search(query string) *mcp.CallToolResult {
	q := strings.ToLower(strings.TrimSpace(query))
	l.mu.Lock()
	var hits []Note
	for _, n := range l.notes {
		if q == "" || strings.Contains(strings.ToLower(n.Title), q) || strings.Contains(strings.ToLower(n.Text), q) {
			hits = append(hits, n)
		}
	}
	l.mu.Unlock()
	if len(hits) == 0 {
		return mcp.TextResult(fmt.Sprintf("No note mentions %q.", query))
	}
	sort.Slice(hits, func(i, j int) bool { return hits[i].ID < hits[j].ID })
	var b strings.Builder
	fmt.Fprintf(&b, "%d note(s) mention %q:", len(hits), query)
	for _, n := range hits {
		fmt.Fprintf(&b, "\n%s: %s", n.ID, n.Title)
	}
	return mcp.TextResult(b.String())
}

// Serve runs the notes server on stdio until in ends. Writes longer than
// pipe.PieceSize go out in pieces: when out is a pipe, each piece waits until
// the client has read the one before (so the client's read returns half a
// message every time); otherwise a short pause separates them.
func Serve(ctx context.Context, in io.Reader, out io.Writer, log io.Writer) error {
	s := New(NewLibrary())
	s.Log = log
	return s.ServeStdio(ctx, in, &pipe.Pieces{W: out})
}
