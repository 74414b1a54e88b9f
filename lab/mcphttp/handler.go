// Package mcphttp serves an mcpserver.Server over Streamable HTTP, revision
// 2026-07-28: one POST per message to one endpoint, the MCP-Protocol-Version,
// Mcp-Method and Mcp-Name headers checked against the body (400 with
// -32020 when they disagree, after decoding the =?base64?...?= sentinel),
// and each answer sent as one JSON object or as an event stream that
// carries the notifications a tool sends while it runs, the response, and
// the notifications it leaves for after the response. Request bodies are
// read within lab/httpbound's bounds (size, time, and room shared by the
// bodies in flight), and NewServer and LimitListener bound headers and
// connections with the same package, so stalled or broken uploads cost
// bounded memory.
package mcphttp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcplab/mcplab/lab/httpbound"
	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/wire"
)

// Handler answers MCP messages POSTed to it. Mount it at the endpoint's
// path (the lab uses /mcp).
type Handler struct {
	// Server answers the messages.
	Server *mcpserver.Server
	// EventStream says which requests are answered with an event stream
	// rather than one JSON object. Nil means none are. Only an event stream
	// can carry a tool's notifications.
	EventStream func(method string) bool
	// MaxBody bounds a request's body when Bodies is nil; 0 means
	// httpbound.DefaultMaxBody.
	MaxBody int64
	// Bodies reads the request bodies within its bounds; nil means the
	// handler's own, with the default httpbound.Body (and MaxBody).
	Bodies *httpbound.Bodies
	// Log receives one line per refused request; nil means none.
	Log func(format string, args ...any)

	once   sync.Once
	bodies *httpbound.Bodies
}

// reader returns the Bodies that reads h's requests.
func (h *Handler) reader() *httpbound.Bodies {
	if h.Bodies != nil {
		return h.Bodies
	}
	h.once.Do(func() { h.bodies = httpbound.NewBodies(httpbound.Body{MaxBody: h.MaxBody}, nil) })
	return h.bodies
}

func (h *Handler) logf(format string, args ...any) {
	if h.Log != nil {
		h.Log(format, args...)
	}
}

// ServeHTTP answers one POST.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		Abandon(w, r)
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "this MCP endpoint takes POST only; revision 2026-07-28 has no GET stream and no sessions", http.StatusMethodNotAllowed)
		return
	}
	if !loopbackHost(r.Host) && !localAddrHost(r) {
		// A page on a name the attacker's DNS points at this machine (DNS
		// rebinding) reaches the server with that name as its Host.
		h.logf("refused a POST for host %q", r.Host)
		Abandon(w, r)
		writeError(w, http.StatusForbidden, nil, wire.Errorf(wire.CodeInvalidRequest, "Forbidden: host %q is not this local server's name", r.Host))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !sameLocalOrigin(origin, r.Host, localAddrHost(r)) {
		h.logf("refused a POST from origin %q", origin)
		Abandon(w, r)
		writeError(w, http.StatusForbidden, nil, wire.Errorf(wire.CodeInvalidRequest, "Forbidden: origin %q may not use this local server", origin))
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		Abandon(w, r)
		writeError(w, http.StatusUnsupportedMediaType, nil, wire.Errorf(wire.CodeInvalidRequest, "Invalid Request: the body must be sent as Content-Type: application/json"))
		return
	}
	body, release, berr := readBody(h.reader(), w, r)
	if berr != nil {
		h.logf("refused a body: %v", berr)
		berr.Write(w)
		return
	}
	defer release()
	body = bytes.TrimSpace(body)
	msg, problem := wire.ParseRequest(body)
	if problem != nil {
		id := problem.ID
		if bytes.Equal(id, wire.Null) {
			id = nil
		}
		writeError(w, http.StatusBadRequest, id, problem.Err)
		return
	}
	if msg.Kind == wire.KindNotification {
		// No client notification is defined on HTTP in this revision; a
		// well-formed one is accepted and has no effect.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if e := CheckHeaders(r.Header, msg); e != nil {
		h.logf("refused %s id=%s: %s", msg.Method, msg.ID, e.Message)
		writeError(w, http.StatusBadRequest, msg.ID, e)
		return
	}
	if level := readMeta(msg.Params).LogLevel; level != "" && levelRank(level) < 0 {
		writeError(w, http.StatusBadRequest, msg.ID, wire.Errorf(wire.CodeInvalidParams,
			"Invalid params: %q is not a log level; the levels are %s", level, strings.Join(logLevels, ", ")))
		return
	}
	conn := h.Server.NewConn()
	if h.EventStream == nil || !h.EventStream(msg.Method) || !acceptsStream(r.Header) {
		reply := conn.Answer(r.Context(), body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status(reply.Err))
		w.Write(reply.Line)
		return
	}
	h.stream(w, r, conn, body, msg)
}

// stream answers with an event stream: the notifications a tool sends
// while it runs, the response, then the ones it left for after.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, conn *mcpserver.Conn, body []byte, msg *wire.Message) {
	s := &eventStream{w: w, meta: readMeta(msg.Params)}
	s.flusher, _ = w.(http.Flusher)
	ctx := context.WithValue(r.Context(), notifierKey{}, s)
	reply := conn.Answer(ctx, body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started && reply.Err != nil {
		// Refused before anything ran: a plain JSON error with its status.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status(reply.Err))
		w.Write(reply.Line)
		s.done = true
		return
	}
	// The response and what trails it go out with the end of the stream,
	// in as few packets as the connection allows.
	s.start()
	s.event(bytes.TrimSuffix(reply.Line, []byte("\n")), false)
	for _, n := range s.after {
		s.event(n, false)
	}
	s.after, s.done = nil, true
}

// acceptsStream reports whether the client takes an event stream. A
// client with no Accept header takes anything.
func acceptsStream(h http.Header) bool {
	accept := h.Values("Accept")
	if len(accept) == 0 {
		return true
	}
	for _, v := range accept {
		for _, part := range strings.Split(v, ",") {
			mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			if mt == "text/event-stream" || mt == "*/*" || mt == "text/*" {
				return true
			}
		}
	}
	return false
}

// status is the HTTP status of an answer carrying e.
func status(e *wire.Error) int {
	if e == nil {
		return http.StatusOK
	}
	switch e.Code {
	case wire.CodeMethodNotFound:
		return http.StatusNotFound
	case wire.CodeParseError, wire.CodeInvalidRequest, wire.CodeInvalidParams,
		wire.CodeHeaderMismatch, wire.CodeMissingClientCapabilities, wire.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, code int, id json.RawMessage, e *wire.Error) {
	line, err := wire.AppendErrorLine(nil, id, e)
	if err != nil {
		http.Error(w, e.Message, code)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(line)
}

// loopbackHost reports whether a request's Host names this machine:
// localhost or a loopback address, with any port.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// localAddrHost reports whether a request's Host is the literal address
// of the connection's own end (a server told to listen on a machine's
// address answers requests sent to that address, never to a name), or
// the connection is not TCP.
func localAddrHost(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	if la.Network() != "tcp" {
		// A Unix socket (the rig's, behind the sandbox's bridge): no page
		// reaches it by a name, so no name needs refusing.
		return true
	}
	local, _, err := net.SplitHostPort(la.String())
	if err != nil {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip, lip := net.ParseIP(strings.Trim(host, "[]")), net.ParseIP(local)
	return ip != nil && lip != nil && ip.Equal(lip)
}

// sameLocalOrigin reports whether an Origin names this machine (or the
// very address the request was sent to, when its Host is that address) and
// the port the request was sent to (its Host's): a page served by another
// local program, on another port, is another origin.
func sameLocalOrigin(origin, hostport string, hostIsLocalAddr bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if !loopbackHost(u.Host) && !(hostIsLocalAddr && strings.EqualFold(u.Hostname(), strings.Trim(hostOnly(hostport), "[]"))) {
		return false
	}
	return portOf(u.Port(), u.Scheme) == portOf(requestPort(hostport), "http")
}

// hostOnly is a Host value without its port.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// requestPort is the port of a Host value, "" when it names none.
func requestPort(hostport string) string {
	if _, port, err := net.SplitHostPort(hostport); err == nil {
		return port
	}
	return ""
}

// portOf is port, or the scheme's default when port is "".
func portOf(port, scheme string) string {
	if port != "" {
		return port
	}
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// CheckHeaders compares the request metadata headers with the body, as the
// server does before it answers, and says how they disagree (-32020). The
// values are compared as they are (case matters); an Mcp-Name in the
// sentinel form is decoded first.
func CheckHeaders(h http.Header, msg *wire.Message) *wire.Error {
	var body struct {
		Name *string `json:"name"`
		URI  *string `json:"uri"`
		Meta struct {
			Version *string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	json.Unmarshal(msg.Params, &body) // a malformed params is the core's to refuse
	version, ok := headerValue(h, "MCP-Protocol-Version")
	switch {
	case !ok:
		return mismatch("Header mismatch: the MCP-Protocol-Version header is missing; every POST needs it")
	case body.Meta.Version != nil && version != *body.Meta.Version:
		return mismatch("Header mismatch: MCP-Protocol-Version header value '%s' does not match body value '%s'", version, *body.Meta.Version)
	}
	method, ok := headerValue(h, "Mcp-Method")
	switch {
	case !ok:
		return mismatch("Header mismatch: the Mcp-Method header is missing; every request needs it")
	case method != msg.Method:
		return mismatch("Header mismatch: Mcp-Method header value '%s' does not match body value '%s'", method, msg.Method)
	}
	var want *string
	switch mcp.NameMember(msg.Method) {
	case "name":
		want = body.Name
	case "uri":
		want = body.URI
	default:
		return nil
	}
	raw, ok := headerValue(h, "Mcp-Name")
	if !ok {
		return mismatch("Header mismatch: the Mcp-Name header is missing; %s needs it", msg.Method)
	}
	name, err := DecodeHeaderValue(raw)
	if err != nil {
		return mismatch("Header mismatch: the Mcp-Name header %v", err)
	}
	if want == nil {
		return nil // the body lacks the name; the core refuses it
	}
	if name != *want {
		return mismatch("Header mismatch: Mcp-Name header value '%s' does not match body value '%s'", name, *want)
	}
	return nil
}

func mismatch(format string, args ...any) *wire.Error {
	return wire.Errorf(wire.CodeHeaderMismatch, format, args...)
}

// headerValue returns a header's one value. A header sent twice counts as
// malformed, and so is reported missing only when absent.
func headerValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.Join(vs, ","), true
}

// DecodeHeaderValue reads an Mcp-Name or Mcp-Param value: the sentinel
// =?base64?...?= is decoded (standard, padded Base64 of UTF-8); any other
// value must be visible ASCII, spaces and tabs.
func DecodeHeaderValue(v string) (string, error) {
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if inner, ok = strings.CutSuffix(inner, "?="); ok {
			b, err := base64.StdEncoding.DecodeString(inner)
			if err != nil {
				return "", fmt.Errorf("has a =?base64?...?= value that is not valid Base64: %v", err)
			}
			return string(b), nil
		}
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", fmt.Errorf("holds byte 0x%02x, which a header value may not; a name that is not plain ASCII goes in the =?base64?...?= form", c)
		}
	}
	return v, nil
}
