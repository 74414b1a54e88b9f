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
		req, _ := http.NewRequest("POST", ts.URL+helpdesk.Path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", c.method)
		if c.name != "" {
			req.Header.Set("Mcp-Name", c.name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/json" || strings.TrimSuffix(string(got), "\n") != want {
			t.Errorf("%s %s: got %d %q\n%s\nwant %d application/json\n%s", c.method, c.name, resp.StatusCode, resp.Header.Get("Content-Type"), got, c.status, want)
		}
	}
}
