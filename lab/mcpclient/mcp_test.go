package mcpclient

import (
	"context"
	"strings"
	"testing"
)

// listTools runs ListTools in the background.
func listTools(c *Client) <-chan result {
	ch := make(chan result, 1)
	go func() {
		tools, err := c.ListTools(context.Background())
		names := []string{}
		for _, t := range tools {
			names = append(names, t.Name)
		}
		ch <- result{&Reply{Result: []byte(strings.Join(names, ","))}, err}
	}()
	return ch
}

// Three tools, two a page: the client follows nextCursor, byte for byte,
// until a page has none; a short page or an empty cursor does not stop it.
func TestPagination(t *testing.T) {
	c, f := newPipeClient(t, Options{})
	done := listTools(c)
	if got, want := f.next(), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+metaJSON+`}}}`; got != want {
		t.Fatalf("page 1 request\n%s\nwant\n%s", got, want)
	}
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"search","inputSchema":{"type":"object"}}],"nextCursor":"p2\u002f=="}}` + "\n")
	if got, want := f.next(), `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"p2\u002f==",`+metaJSON+`}}}`; got != want {
		t.Fatalf("page 2 request\n%s\nwant\n%s", got, want)
	}
	f.send(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","tools":[{"name":"read","inputSchema":{"type":"object"}}],"nextCursor":""}}` + "\n")
	if got, want := f.next(), `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"",`+metaJSON+`}}}`; got != want {
		t.Fatalf("page 3 request\n%s\nwant\n%s", got, want)
	}
	f.send(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","tools":[{"name":"long_note","inputSchema":{"type":"object"}}]}}` + "\n")
	r := wait(t, done)
	if r.err != nil || string(r.reply.Result) != "search,read,long_note" {
		t.Fatalf("got %s, %v", r.reply.Result, r.err)
	}
}

func TestPaginationRefusesLoops(t *testing.T) {
	c, f := newPipeClient(t, Options{})
	done := listTools(c)
	for i := 1; i <= 2; i++ {
		id := idOf(t, f.next())
		f.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","tools":[],"nextCursor":"again"}}` + "\n")
	}
	r := wait(t, done)
	if r.err == nil || !strings.Contains(r.err.Error(), "a second time") {
		t.Fatalf("got %v", r.err)
	}
}

func TestPaginationBadPages(t *testing.T) {
	for _, tt := range []struct{ result, want string }{
		{`{"resultType":"complete","tools":[],"nextCursor":7}`, "a cursor is a string"},
		{`{"resultType":"complete"}`, `no "tools" array`},
		{`{"resultType":"complete","tools":[{"description":"no name"}]}`, `string "name"`},
	} {
		c, f := newPipeClient(t, Options{})
		done := listTools(c)
		f.next()
		f.send(`{"jsonrpc":"2.0","id":1,"result":` + tt.result + "}\n")
		if r := wait(t, done); r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.result, r.err, tt.want)
		}
	}
}

func TestCallTool(t *testing.T) {
	c, f := newPipeClient(t, Options{})
	type out struct {
		r   *ToolResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		r, err := c.CallTool(context.Background(), "read", map[string]string{"id": "n1"})
		ch <- out{r, err}
	}()
	if got, want := f.next(), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"id":"n1"},`+metaJSON+`}}}`; got != want {
		t.Fatalf("sent\n%s\nwant\n%s", got, want)
	}
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","isError":true,"content":[{"type":"text","text":"no note n1"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}}` + "\n")
	o := <-ch
	if o.err != nil {
		t.Fatal(o.err)
	}
	if !o.r.IsError || o.r.Text() != "no note n1\n[image block, image/png, 4 bytes of base64]" {
		t.Errorf("got %+v, text %q", o.r, o.r.Text())
	}
}

func TestDiscover(t *testing.T) {
	c, f := newPipeClient(t, Options{})
	ch := make(chan error, 1)
	var d *Discovery
	go func() {
		var err error
		d, err = c.Discover(context.Background())
		ch <- err
	}()
	f.next()
	f.send(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"notes","version":"1"}},"ttlMs":0,"cacheScope":"public"}}` + "\n")
	if err := <-ch; err != nil {
		t.Fatal(err)
	}
	if d.ServerInfo == nil || d.ServerInfo.Name != "notes" || d.SupportedVersions[0] != "2026-07-28" {
		t.Errorf("got %+v", d)
	}
}
