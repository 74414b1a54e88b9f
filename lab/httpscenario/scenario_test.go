package httpscenario_test

import (
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/httpscenario"
)

const pages = `Two pages, the second from the other copy.
-- one a --
POST /mcp
mcp-method: tools/list
Origin: http://127.0.0.1:{{port b}}

{"jsonrpc":"2.0","id":"p1","method":"tools/list","params":{}}
-- two b --
POST /mcp

{"jsonrpc":"2.0","id":"p2","method":"tools/list","params":{"cursor":"{{answer one result.nextCursor}}","pad":"{{pad 3}}"}}
-- stop --
SIGTERM
-- expect --
# a comment
one  mcp.helpdesk status 200 4xx
two  stateless.any-copy needs one
two  stateless.any-copy answer result.tools[0].name = "get_customer"
stop lifecycle.sigterm exit 0
`

// A scenario reads as written: exchanges in order with their copies,
// header names as spelled, and templates filled from the ports and the
// earlier responses.
func TestParseAndFill(t *testing.T) {
	sc, err := httpscenario.Parse("pages", []byte(pages))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Comment != "Two pages, the second from the other copy." || len(sc.Exchanges) != 3 || len(sc.Expect) != 4 {
		t.Fatalf("parsed %+v", sc)
	}
	one, two, stop := sc.Exchanges[0], sc.Exchanges[1], sc.Exchanges[2]
	if one.Copy != "a" || two.Copy != "b" || stop.Copy != "a" || !stop.Terminate || one.Request.Header[0].Name != "mcp-method" {
		t.Errorf("exchanges %+v %+v %+v", one, two, stop)
	}
	if e := sc.Expect[0]; !e.StatusMatches(200) || !e.StatusMatches(404) || e.StatusMatches(500) || e.StatusWords() != "200 or 4xx" {
		t.Errorf("status line %+v", e)
	}
	f := httpscenario.Filled{Ports: map[string]int{"a": 1, "b": 2}, Responses: map[string]map[string]any{
		"one": {"result": map[string]any{"nextCursor": `c"1`}},
	}}
	req, err := one.Fill(f)
	if err != nil || req.Header[1].Value != "http://127.0.0.1:2" {
		t.Errorf("filled %v, %v", req.Header, err)
	}
	req, err = two.Fill(f)
	if want := `"cursor":"c\"1","pad":"xxx"`; err != nil || !strings.Contains(string(req.Body), want) {
		t.Errorf("filled %s, %v; want %s", req.Body, err, want)
	}
	if _, err := two.Fill(httpscenario.Filled{}); err == nil || !strings.Contains(err.Error(), "exchange one got no response") {
		t.Errorf("filling without the response: %v", err)
	}
}

// Each mistake in a scenario is refused with its line and what is wrong.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"-- x --\nPOST /mcp\n\n{}\n", "no expect file"},
		{"-- x c --\nPOST /mcp\n", "the copies are a and b"},
		{"-- x --\nFETCH\n-- expect --\n", "want METHOD PATH"},
		{"-- x --\nPOST /mcp\nbad header\n-- expect --\n", "want Name: value"},
		{"-- x --\nPOST /mcp\n\n{{answer y result}}\n-- expect --\n", "no exchange y comes before"},
		{"-- x --\nPOST /mcp\n\n{{pad 99999999999}}\n-- expect --\n", "want {{pad N}}"},
		{"-- x --\nPOST /mcp\n\n{}\n-- expect --\nx a.b response\n", "has no id"},
		{"-- x --\nPOST /mcp\n\n{}\n-- expect --\nx a.b teleport\n", "unknown test"},
		{"-- x --\nSIGTERM\n-- expect --\nx a.b status 200\n", "only an exit test"},
		{"-- x --\nPOST /mcp\n\n{}\n-- expect --\ny a.b status 200\n", "no exchange named y"},
	} {
		_, err := httpscenario.Parse("bad", []byte(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one saying %q", c.text, err, c.want)
		}
	}
}
