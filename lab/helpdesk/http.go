package helpdesk

import (
	"net/http"

	"github.com/mcplab/mcplab/lab/mcphttp"
	"github.com/mcplab/mcplab/lab/wire"
)

// Path is the help desk's MCP endpoint when it is served over Streamable
// HTTP (lesson 4).
const Path = "/mcp"

// MaxBody is the largest request body the help desk reads over HTTP:
// 1 MiB, far more than any of its requests needs.
const MaxBody = 1 << 20

// Handler serves the help desk over Streamable HTTP at Path, with the same
// dispatch as on stdio: every answer is one JSON object (the help desk
// sends no notifications, so it never needs an event stream), and the
// checks and bounds are lab/mcphttp's, but for a body whose Content-Length
// is past MaxBody: that is refused with 413 Content Too Large before a
// byte of it is read, as lesson 4 asks of a server (a client that sent
// Expect: 100-continue never sends it). Over HTTP the help desk is modern
// only: the legacy era an initialize selects is scoped to an HTTP session,
// and the help desk keeps none, so initialize is a method it does not have
// (404, -32601, naming the versions it speaks), as the conformance suite
// checks. log gets one line per refused request; nil means none.
func Handler(data *Data, log func(format string, args ...any)) http.Handler {
	srv := New(data)
	srv.LegacyVersions = nil
	mux := http.NewServeMux()
	mux.Handle(Path, &mcphttp.Handler{Server: srv, Log: log, MaxBody: MaxBody})
	return refuseLarge(mux, log)
}

// refuseLarge answers 413 to a POST whose declared body is past MaxBody.
func refuseLarge(next http.Handler, log func(format string, args ...any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.ContentLength <= MaxBody {
			next.ServeHTTP(w, r)
			return
		}
		if log != nil {
			log("refused a body of %d bytes, past the %d it reads", r.ContentLength, MaxBody)
		}
		mcphttp.Abandon(w, r)
		line, _ := wire.AppendErrorLine(nil, nil, wire.Errorf(wire.CodeInvalidRequest,
			"Invalid Request: the body of %d bytes is more than the %d bytes this server reads for one message; send one JSON-RPC request per POST", r.ContentLength, MaxBody))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		w.Write(line)
	})
}
