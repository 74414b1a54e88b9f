package helpdesk

import (
	"net/http"

	"github.com/mcplab/mcplab/lab/mcphttp"
)

// Path is the help desk's MCP endpoint when it is served over Streamable
// HTTP (lesson 4).
const Path = "/mcp"

// Handler serves the help desk over Streamable HTTP at Path, with the same
// dispatch as on stdio: every answer is one JSON object (the help desk
// sends no notifications, so it never needs an event stream), and the
// bounds and checks are lab/mcphttp's. log gets one line per refused
// request; nil means none.
func Handler(data *Data, log func(format string, args ...any)) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Path, &mcphttp.Handler{Server: New(data), Log: log})
	return mux
}
