package interop_test

// This file measures what the two Go SDKs' Streamable HTTP servers answer
// to the requests lesson 4 ("Serving over HTTP") discusses: a notification,
// a GET, a foreign Origin or Host, a missing or disagreeing header, a body
// of the wrong type or size. Each server listens on a loopback port of its
// own, as a student's server does when the grader starts it. The lesson's
// README quotes the table this test measures; TestHTTPServerSDKTable fails
// when the table there no longer says what the servers do, and prints the
// table measured, ready to paste.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplab/mcplab/internal/testkit"
)

// httpServerPeer is one SDK's Streamable HTTP server, as a column of the
// lesson's table.
type httpServerPeer struct {
	// column is the table's header cell; module and version say which
	// SDK it is, checked against the build.
	column, module, version string
	handler                 func() http.Handler
}

// httpServerPeers are the servers measured, each in its stateless mode
// (the lesson's subject) with the SDK's defaults otherwise.
var httpServerPeers = []httpServerPeer{
	{column: "go-sdk v1.8.0 (`Stateless`)", module: "github.com/modelcontextprotocol/go-sdk", version: "v1.8.0",
		handler: func() http.Handler { return gosdkHelpdeskHandler(false) }},
	{column: "go-sdk v1.8.0 (`Stateless`, `JSONResponse`)", module: "github.com/modelcontextprotocol/go-sdk", version: "v1.8.0",
		handler: func() http.Handler { return gosdkHelpdeskHandler(true) }},
	{column: "mcp-go v1.2.1 (`WithStateLess`)", module: "github.com/mark3labs/mcp-go", version: "v1.2.1",
		handler: func() http.Handler {
			return mcpgoserver.NewStreamableHTTPServer(mcpgoHelpdesk(), mcpgoserver.WithStateLess(true))
		}},
}

// gosdkHelpdeskHandler is a go-sdk server with the help desk's get_ticket
// tool, served statelessly.
func gosdkHelpdeskHandler(jsonAnswers bool) http.Handler {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "gosdk-helpdesk", Version: "0"}, nil)
	type args struct {
		TicketID string `json:"ticket_id"`
	}
	gosdk.AddTool(s, &gosdk.Tool{Name: "get_ticket", Description: "Returns one support ticket by its number."},
		func(_ context.Context, _ *gosdk.CallToolRequest, a args) (*gosdk.CallToolResult, any, error) {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "ticket " + a.TicketID}}}, nil, nil
		})
	return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
		&gosdk.StreamableHTTPOptions{Stateless: true, JSONResponse: jsonAnswers})
}

// mcpgoHelpdesk is an mcp-go server with the same tool.
func mcpgoHelpdesk() *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("mcpgo-helpdesk", "0")
	s.AddTool(mcpgo.NewTool("get_ticket", mcpgo.WithDescription("Returns one support ticket by its number."), mcpgo.WithString("ticket_id")),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("ticket " + req.GetString("ticket_id", "")), nil
		})
	return s
}

// The _meta every 2026-07-28 request carries.
const probeMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// Bodies of the probes.
const (
	probeListBody   = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + probeMeta + `}}`
	probeCallBody   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_ticket","arguments":{"ticket_id":"2318"},` + probeMeta + `}}`
	probeNotifyBody = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,` + probeMeta + `}}`
	probeUnknown    = `{"jsonrpc":"2.0","id":3,"method":"tickets/get","params":{` + probeMeta + `}}`
)

// probeBodyBound is the size of the oversized body: past go-sdk's default
// bound (4 MiB) and the lab's.
const probeBodyBound = 16 << 20

// httpServerProbe is one request of the lesson's table: a row.
type httpServerProbe struct {
	row    string
	method string
	body   string
	// set replaces headers of the well-formed POST ("" deletes one);
	// host replaces the Host header.
	set  map[string]string
	host string
}

// probeHeaders are the headers of a well-formed tools/list POST.
var probeHeaders = map[string]string{
	"Content-Type":         "application/json",
	"Accept":               "application/json, text/event-stream",
	"MCP-Protocol-Version": "2026-07-28",
	"Mcp-Method":           "tools/list",
}

// callHeaders are those of a well-formed tools/call of get_ticket.
var callHeaders = map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "get_ticket"}

func withHeaders(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range sets {
		for k, v := range s {
			out[k] = v
		}
	}
	return out
}

// httpServerProbes are the rows, in the lesson's order.
var httpServerProbes = []httpServerProbe{
	{row: "`tools/list`, every header right", method: "POST", body: probeListBody},
	{row: "`tools/call`, every header right", method: "POST", body: probeCallBody, set: callHeaders},
	{row: "a notification", method: "POST", body: probeNotifyBody, set: map[string]string{"Mcp-Method": "notifications/cancelled"}},
	{row: "`GET` with `Accept: text/event-stream`", method: "GET", set: map[string]string{"Accept": "text/event-stream", "Content-Type": ""}},
	{row: "`Origin: http://evil.example`", method: "POST", body: probeListBody, set: map[string]string{"Origin": "http://evil.example"}},
	{row: "`Host: evil.example`", method: "POST", body: probeListBody, host: "evil.example"},
	{row: "no `MCP-Protocol-Version`", method: "POST", body: probeListBody, set: map[string]string{"MCP-Protocol-Version": ""}},
	{row: "`MCP-Protocol-Version: 2025-11-25`, body 2026-07-28", method: "POST", body: probeListBody, set: map[string]string{"MCP-Protocol-Version": "2025-11-25"}},
	{row: "no `Mcp-Method`", method: "POST", body: probeListBody, set: map[string]string{"Mcp-Method": ""}},
	{row: "`Mcp-Method: tools/list`, body `tools/call`", method: "POST", body: probeCallBody, set: map[string]string{"Mcp-Name": "get_ticket"}},
	{row: "`Mcp-Name: get_customer`, body `get_ticket`", method: "POST", body: probeCallBody, set: withHeaders(callHeaders, map[string]string{"Mcp-Name": "get_customer"})},
	{row: "`tools/call` without `Mcp-Name`", method: "POST", body: probeCallBody, set: map[string]string{"Mcp-Method": "tools/call"}},
	{row: "`Content-Type: text/plain`", method: "POST", body: probeListBody, set: map[string]string{"Content-Type": "text/plain"}},
	{row: "`Accept: application/json` only", method: "POST", body: probeListBody, set: map[string]string{"Accept": "application/json"}},
	{row: "no `Accept`", method: "POST", body: probeListBody, set: map[string]string{"Accept": ""}},
	{row: "a 16 MiB body", method: "POST", body: `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", probeBodyBound) + `",` + probeMeta + `}}`},
	{row: "an unknown method", method: "POST", body: probeUnknown, set: map[string]string{"Mcp-Method": "tickets/get"}},
}

// measureHTTPServer sends p to the server at addr and describes the answer
// as a cell of the table: the status, the type of the body (no body, JSON,
// an event stream, text), and the code of a JSON-RPC error it carries.
func measureHTTPServer(ctx context.Context, addr string, p httpServerProbe) (string, error) {
	var body io.Reader
	if p.body != "" {
		body = strings.NewReader(p.body)
	}
	req, err := http.NewRequestWithContext(ctx, p.method, "http://"+addr+"/mcp", body)
	if err != nil {
		return "", err
	}
	for k, v := range withHeaders(probeHeaders, p.set) {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	if p.host != "" {
		req.Host = p.host
	}
	// A fresh connection for each probe: a server that leaves a refused
	// body unread may close the connection, and the next probe must not
	// find it so.
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p.row, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("%s: reading the answer: %w", p.row, err)
	}
	return describeHTTPAnswer(resp.StatusCode, resp.Header.Get("Content-Type"), b), nil
}

// describeHTTPAnswer is measureHTTPServer's cell.
func describeHTTPAnswer(status int, contentType string, body []byte) string {
	cell := fmt.Sprintf("`%d`", status)
	mt, _, _ := mime.ParseMediaType(contentType)
	var msg []byte
	switch {
	case len(bytes.TrimSpace(body)) == 0:
		return cell + ", no body"
	case mt == "application/json":
		cell += ", JSON"
		msg = body
	case mt == "text/event-stream":
		cell += ", event stream"
		msg = lastEventData(body)
	case mt == "":
		cell += ", a body with no type"
	default:
		cell += ", " + mt
	}
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if len(msg) > 0 && json.Unmarshal(msg, &m) == nil {
		switch {
		case m.Error != nil:
			cell += fmt.Sprintf(", `%d`", m.Error.Code)
		case m.Result != nil:
			cell += ", the result"
		}
	}
	return cell
}

// lastEventData is the data of an event stream's last event that has any.
func lastEventData(stream []byte) []byte {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			last = []byte(strings.TrimSpace(d))
		}
	}
	return last
}

// serveOnLoopback serves h on a loopback port of its own until the test
// ends, and returns its address.
func serveOnLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	})
	return ln.Addr().String()
}

// measuredHTTPServerTable measures every probe against every peer and
// returns the cells, by row then column.
func measuredHTTPServerTable(t *testing.T) [][]string {
	t.Helper()
	// Until the test binary's deadline, not a minute: under CI's load the
	// 16 MiB body to mcp-go took longer than that to send.
	ctx, cancel := testkit.TestContext(t)
	defer cancel()
	cells := make([][]string, len(httpServerProbes))
	for _, peer := range httpServerPeers {
		addr := serveOnLoopback(t, peer.handler())
		for i, p := range httpServerProbes {
			cell, err := measureHTTPServer(ctx, addr, p)
			if err != nil {
				t.Fatalf("%s: %v", peer.column, err)
			}
			cells[i] = append(cells[i], cell)
		}
	}
	return cells
}

// lessonFourREADME is the lesson whose table this test keeps.
const lessonFourREADME = "../lessons/04-serving-over-http/README.md"

// httpServerTableHeader is the header row of that table.
func httpServerTableHeader() string {
	cols := []string{"Request"}
	for _, p := range httpServerPeers {
		cols = append(cols, p.column)
	}
	return "| " + strings.Join(cols, " | ") + " |"
}

// TestHTTPServerSDKTable measures the SDKs' servers and compares the
// answers with the table of lesson 4's README, cell by cell. The SDK
// versions in the header are checked against the ones go.mod pins.
func TestHTTPServerSDKTable(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range httpServerPeers {
		if !bytes.Contains(mod, []byte("\t"+p.module+" "+p.version+"\n")) {
			t.Errorf("go.mod does not require %s %s, the version the table's column %q names: measure again and rename the column", p.module, p.version, p.column)
		}
	}
	got := measuredHTTPServerTable(t)
	var table strings.Builder
	table.WriteString(httpServerTableHeader() + "\n|" + strings.Repeat("---|", len(httpServerPeers)+1) + "\n")
	for i, p := range httpServerProbes {
		table.WriteString("| " + p.row + " | " + strings.Join(got[i], " | ") + " |\n")
	}
	doc, err := os.ReadFile(lessonFourREADME)
	if err != nil {
		t.Fatalf("%v\nmeasured:\n%s", err, table.String())
	}
	rows, err := testkit.TableRows(string(doc), httpServerTableHeader())
	if err != nil {
		t.Fatalf("%s has %v\nmeasured:\n%s", lessonFourREADME, err, table.String())
	}
	bad := len(rows) != len(httpServerProbes)
	for i := 0; !bad && i < len(rows); i++ {
		want := append([]string{httpServerProbes[i].row}, got[i]...)
		if strings.Join(rows[i], "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s, row %d: the table says %q, measured %q", lessonFourREADME, i+1, rows[i], want)
			bad = true
		}
	}
	if bad {
		t.Errorf("%s's table of the SDKs' servers differs from what they do; measured:\n%s", lessonFourREADME, table.String())
	} else {
		t.Logf("measured, as the table says:\n%s", table.String())
	}
}
