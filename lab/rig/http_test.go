package rig

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/tickets"
)

// echoHandler answers every request with its body, as JSON.
type echoHandler struct{}

func (echoHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// ticketsHandler is lesson 3's ticket system, the rig's usual HTTP server,
// its log discarded. It is lab/tickets' own handler, not internal/servers'
// wrapping of it: internal/servers imports the rig (through lab/clientplay).
// startTickets starts a rig that plays the tickets server, closed when t
// ends.
func startTickets(t *testing.T, opts Options) *Rig {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = shortDir(t)
	}
	r, err := Start(context.Background(), []Server{{Alias: "tickets", HTTP: ticketsHandler(t)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func ticketsHandler(t *testing.T) http.Handler {
	t.Helper()
	return tickets.Handler(func(string, ...any) {})
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

var (
	listBody   = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`
	searchBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"queue"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"}}}`
	listHeader = []string{"Content-Type: application/json", "Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/list"}
	callHeader = []string{"Content-Type: application/json", "Accept: application/json, text/event-stream", "MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: search"}
)

// exchange is one raw HTTP exchange: the request exactly as written, the
// response as read, and how reading its body ended.
type exchange struct {
	resp    *http.Response
	body    string
	bodyErr error
}

// post writes a POST by hand, so that the headers the rig records are
// exactly the ones sent, and reads the answer.
func post(t *testing.T, network, addr, path string, header []string, body string) exchange {
	t.Helper()
	c, err := net.DialTimeout(network, addr, patience)
	if err != nil {
		t.Fatalf("reaching %s: %v", addr, err)
	}
	defer c.Close()
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		path, strings.Join(header, "\r\n"), len(body), body)
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer's head: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	return exchange{resp: resp, body: string(b), bodyErr: err}
}

// wantHeader is the header a post event records for a request post sent.
func wantHeader(lines []string, body string) http.Header {
	h := http.Header{}
	for _, l := range lines {
		k, v, _ := strings.Cut(l, ": ")
		h.Add(k, v)
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	h.Set("Connection", "close")
	h.Set(RequestLineHeader, "POST /mcp")
	return h
}

// Each request is recorded with its headers and body, then its status and
// every message of its answer: one for a JSON body, one per event of a
// stream; the socket serves the same server as the port.
func TestHTTPRecordsExchanges(t *testing.T) {
	evs := newEventLog()
	r := startTickets(t, Options{OnEvent: evs.record})
	b := r.Bridges()
	if len(b) != 1 {
		t.Fatalf("bridges %+v", b)
	}
	if got, want := string(r.Config()), "{\"servers\": {\n  \"tickets\": {\"url\": \"http://"+b[0].Addr+"/mcp\"}\n}}\n"; got != want {
		t.Errorf("configuration %q, want %q", got, want)
	}

	list := post(t, "tcp", b[0].Addr, "/mcp", listHeader, listBody)
	if list.bodyErr != nil || list.resp.StatusCode != 200 || list.resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("tools/list: %d %q %v", list.resp.StatusCode, list.resp.Header.Get("Content-Type"), list.bodyErr)
	}
	got := untimed(evs.waitFor(t, event.Exit))
	want := []event.Record{
		{Server: "tickets", Conn: 1, Kind: event.Post, Header: wantHeader(listHeader, listBody), Text: listBody},
		{Server: "tickets", Conn: 1, Kind: event.Status, Status: 200, Text: "application/json"},
		{Server: "tickets", Conn: 1, Kind: event.Answer, Text: strings.TrimSpace(list.body)},
		{Server: "tickets", Conn: 1, Kind: event.Exit},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tools/list events\n%s\nwant\n%s", dumpEvents(got), dumpEvents(want))
	}

	call := post(t, "tcp", b[0].Addr, "/mcp", callHeader, searchBody)
	if call.bodyErr != nil || call.resp.StatusCode != 200 || call.resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("tools/call: %d %q %v", call.resp.StatusCode, call.resp.Header.Get("Content-Type"), call.bodyErr)
	}
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2,"message":"looking up the ticket system"}}`
	response := `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"T-104 (open): Nightly queue stalls; workers stop heartbeating"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcplab-tickets","title":"Ticket system","version":"1.0.0"}}}}`
	if wantBody := "event: message\ndata: " + progress + "\n\nevent: message\ndata: " + response + "\n\n"; call.body != wantBody {
		t.Errorf("the stream the client got\n%q\nwant\n%q", call.body, wantBody)
	}
	got = untimed(evs.waitFor(t, event.Exit))
	want = []event.Record{
		{Server: "tickets", Conn: 2, Kind: event.Post, Header: wantHeader(callHeader, searchBody), Text: searchBody},
		{Server: "tickets", Conn: 2, Kind: event.Status, Status: 200, Text: "text/event-stream"},
		{Server: "tickets", Conn: 2, Kind: event.Answer, Text: progress},
		{Server: "tickets", Conn: 2, Kind: event.Answer, Text: response},
		{Server: "tickets", Conn: 2, Kind: event.Exit},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tools/call events\n%s\nwant\n%s", dumpEvents(got), dumpEvents(want))
	}

	// The socket a bridge forwards to serves the same server.
	viaSocket := post(t, "unix", b[0].Socket, "/mcp", listHeader, listBody)
	if viaSocket.bodyErr != nil || viaSocket.resp.StatusCode != 200 || viaSocket.body != list.body {
		t.Errorf("tools/list through the socket: %d %q %v; want the port's answer %q", viaSocket.resp.StatusCode, viaSocket.body, viaSocket.bodyErr, list.body)
	}
	got = untimed(evs.waitFor(t, event.Exit))
	if len(got) != 4 || got[0].Conn != 3 || got[0].Kind != event.Post || got[2].Text != strings.TrimSpace(list.body) {
		t.Errorf("through the socket, events\n%s", dumpEvents(got))
	}
	if n := len(r.Events()); n != 13 {
		t.Errorf("%d events in all, want 13:\n%s", n, dumpEvents(r.Events()))
	}
}

// A cut call breaks after its headers, before any message, whether its
// answer is an event stream or JSON: the client's read of the body fails,
// and the rig records the cut, once. Other calls are answered as usual.
func TestHTTPCut(t *testing.T) {
	jsonOnly := append([]string{"Content-Type: application/json", "Accept: application/json"}, callHeader[2:]...)
	for _, tt := range []struct {
		name, contentType, why string
		header                 []string
	}{
		{"stream", "text/event-stream", "the rig broke the stream off before its first message", callHeader},
		{"json", "application/json", "the rig broke the connection before the answer's body", jsonOnly},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs := newEventLog()
			r, err := Start(context.Background(), []Server{{Alias: "tickets", HTTP: ticketsHandler(t), Cut: CallOf("search")}}, Options{Dir: shortDir(t), OnEvent: evs.record})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			addr := r.Bridges()[0].Addr
			call := post(t, "tcp", addr, "/mcp", tt.header, searchBody)
			if call.resp.StatusCode != 200 || call.resp.Header.Get("Content-Type") != tt.contentType {
				t.Errorf("the cut answer's head: %d %q, want 200 %s", call.resp.StatusCode, call.resp.Header.Get("Content-Type"), tt.contentType)
			}
			if call.bodyErr == nil || call.body != "" {
				t.Errorf("reading the cut answer gave %q, %v; want no bytes and an error", call.body, call.bodyErr)
			}
			got := untimed(evs.waitFor(t, event.Exit))
			want := []event.Record{
				{Server: "tickets", Conn: 1, Kind: event.Post, Header: wantHeader(tt.header, searchBody), Text: searchBody},
				{Server: "tickets", Conn: 1, Kind: event.Status, Status: 200, Text: tt.contentType},
				{Server: "tickets", Conn: 1, Kind: event.Cut, Text: tt.why},
				{Server: "tickets", Conn: 1, Kind: event.Exit},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("events\n%s\nwant\n%s", dumpEvents(got), dumpEvents(want))
			}
			// A call of another tool is not cut.
			other := strings.Replace(searchBody, `"name":"search","arguments":{"query":"queue"}`, `"name":"get_ticket","arguments":{"id":"T-101"}`, 1)
			hdr := append(append([]string{}, tt.header[:4]...), "Mcp-Name: get_ticket")
			ok := post(t, "tcp", addr, "/mcp", hdr, other)
			if ok.bodyErr != nil || !strings.Contains(ok.body, "T-101 (open)") {
				t.Errorf("another tool's call: %q, %v", ok.body, ok.bodyErr)
			}
		})
	}
}

// A held HTTP call gets no answer until the client gives up; the rig
// records that it held it, and the exchange's end.
func TestHTTPHang(t *testing.T) {
	evs := newEventLog()
	r, err := Start(context.Background(), []Server{{Alias: "tickets", HTTP: ticketsHandler(t), Hold: CallOf("search")}}, Options{Dir: shortDir(t), OnEvent: evs.record})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("tcp", r.Bridges()[0].Addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\n%s\r\nContent-Length: %d\r\n\r\n%s", strings.Join(callHeader, "\r\n"), len(searchBody), searchBody)
	got := untimed(evs.waitFor(t, event.Held))
	if len(got) != 2 || got[1].Text != "the rig holds this call of search and will never answer it" {
		t.Fatalf("events\n%s", dumpEvents(got))
	}
	c.Close()
	got = untimed(evs.waitFor(t, event.Exit))
	if len(got) != 1 {
		t.Errorf("after the client gave up, events\n%s\nwant only gone", dumpEvents(got))
	}
	// The next request is answered.
	list := post(t, "tcp", r.Bridges()[0].Addr, "/mcp", listHeader, listBody)
	if list.bodyErr != nil || list.resp.StatusCode != 200 {
		t.Errorf("tools/list after a held call: %d %v", list.resp.StatusCode, list.bodyErr)
	}
}

// Close ends a held exchange and returns.
func TestHTTPCloseEndsHeldCall(t *testing.T) {
	evs := newEventLog()
	r, err := Start(context.Background(), []Server{{Alias: "tickets", HTTP: ticketsHandler(t), Hold: CallOf("search")}}, Options{Dir: shortDir(t), OnEvent: evs.record})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", r.Bridges()[0].Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\n%s\r\nContent-Length: %d\r\n\r\n%s", strings.Join(callHeader, "\r\n"), len(searchBody), searchBody)
	evs.waitFor(t, event.Held)
	r.Close()
	if got := untimed(evs.waitFor(t, event.Exit)); len(got) != 1 {
		t.Errorf("events after Close\n%s", dumpEvents(got))
	}
	if b, err := io.ReadAll(c); len(b) != 0 {
		t.Errorf("the held call got %q, %v after Close; want nothing", b, err)
	}
}
