package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"

	"github.com/mcplab/mcplab/lab/helpdesk"
	"github.com/mcplab/mcplab/lessons"
)

// helpdeskData is where lesson 2 keeps the helpdesk's tickets and customers.
const helpdeskData = "02-json-rpc-on-the-wire/data"

// serveHelpdesk runs lesson 2's stateless MCP server on stdio until stdin
// closes.
func serveHelpdesk(ctx context.Context, e *env, maxLine int, verbose bool) (int, error) {
	dir, err := fs.Sub(lessons.FS(), helpdeskData)
	if err != nil {
		return exitInternal, fmt.Errorf("finding the helpdesk's data: %w", err)
	}
	data, err := helpdesk.LoadData(dir)
	if err != nil {
		return exitInternal, err
	}
	srv := helpdesk.New(data)
	srv.Log, srv.LogRequests, srv.MaxLine = e.stderr, verbose, maxLine
	if maxLine > 0 {
		debug.SetMemoryLimit(int64(maxLine)*2 + 16<<20)
	}
	if err := srv.ServeStdio(ctx, e.stdin, e.stdout); err != nil {
		if errors.Is(err, context.Canceled) {
			return exitOK, nil
		}
		return exitInternal, fmt.Errorf("serving: %w", err)
	}
	return exitOK, nil
}
