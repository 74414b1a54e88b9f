package helpdesk_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/helpdesk"
)

// Over HTTP the help desk gives, body for body, the lines it gives on
// stdio (lesson 4 serves lesson 2's help desk on a new transport), each as
// one application/json answer with status 200, or 400 for a -32602.
func TestHandlerAnswersAsStdio(t *testing.T) {
	data, err := helpdesk.LoadData(os.DirFS(lessonData))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(helpdesk.Handler(data, nil))
	defer ts.Close()
	cases := []struct {
		method, name, body string
		status             int
	}{
		{"tools/call", "get_ticket", call("get_ticket", `{"ticket_id":"2318"}`), 200},
		{"tools/call", "close_ticket", call("close_ticket", `{}`), 400},
		{"tools/list", "", `{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{` + meta + `}}`, 200},
	}
	for _, c := range cases {
		want := serve(t, c.body)[0]
		resp, got := postMCP(t, ts.URL, c.method, c.name, c.body)
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/json" || strings.TrimSuffix(string(got), "\n") != want {
			t.Errorf("%s %s: got %d %q\n%s\nwant %d application/json\n%s", c.method, c.name, resp.StatusCode, resp.Header.Get("Content-Type"), got, c.status, want)
		}
	}
}

// Over HTTP the help desk keeps no session, so it has nowhere to keep the
// legacy era an initialize selects: initialize is a method it does not
// have, answered 404 with -32601 naming the versions it speaks, exact
// bytes, as the conformance suite asks of a modern-only server.
func TestHandlerHasNoInitialize(t *testing.T) {
	data, err := helpdesk.LoadData(os.DirFS(lessonData))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(helpdesk.Handler(data, nil))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"},` + meta + `}}`
	resp, got := postMCP(t, ts.URL, "initialize", "", body)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: initialize; this server speaks only 2026-07-28, with _meta on every request and no handshake","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}`
	if resp.StatusCode != http.StatusNotFound || strings.TrimSuffix(string(got), "\n") != want {
		t.Errorf("initialize over HTTP: %d\n%s\nwant 404\n%s", resp.StatusCode, got, want)
	}
	// On stdio the same request still selects the legacy era.
	if line := serve(t, body)[0]; !strings.Contains(line, `"result"`) {
		t.Errorf("initialize on stdio: %s, want a result", line)
	}
}

// postMCP POSTs body to the help desk at url with every header lesson 4
// asks of a client (Mcp-Name when name is set), and returns the response
// and its body.
func postMCP(t *testing.T, url, method, name, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+helpdesk.Path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, got
}
