package servers

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lessons"
)

// TestEveryServerAnswers runs each reference server on a request its
// lesson's readiness uses (or a ping) and checks it answers and exits when
// stdin closes.
func TestEveryServerAnswers(t *testing.T) {
	all, err := lessons.All()
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]*lessons.Manifest{}
	for _, m := range all {
		// The first lesson that names a server is the one it was written
		// for (lesson 2's help desk, with its data); a later lesson may
		// serve it another way (lesson 4, over HTTP) and hold no data.
		if named[m.Server] == nil {
			named[m.Server] = m
		}
	}
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			if s.Serve == nil {
				t.Skipf("%s speaks HTTP only; TestHTTPServersAnswer covers it", s.Name)
			}
			opts := Options{MaxLine: 1 << 20}
			request := `{"jsonrpc":"2.0","id":"x","method":"ping"}`
			if m := named[s.Name]; m != nil {
				sub, err := fs.Sub(lessons.FS(), m.Dir)
				if err != nil {
					t.Fatal(err)
				}
				opts.Lesson = sub
				if m.Ready.Kind == "probe" {
					request = m.Ready.Probe
				}
			}
			var out, errs bytes.Buffer
			err := s.Serve(context.Background(), Stdio{In: strings.NewReader(request + "\n"), Out: &out, Err: &errs}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.String(), `{"jsonrpc":"2.0","id":"x"`) && !strings.Contains(out.String(), `"id":"lab-ready"`) {
				t.Errorf("stdout %q, want an answer to %s", out.String(), request)
			}
		})
	}
}

// TestLookup finds a server by name and names the others when it cannot.
func TestLookup(t *testing.T) {
	if s, err := Lookup("reader"); err != nil || s.Name != "reader" {
		t.Errorf("Lookup(reader) = %v, %v", s.Name, err)
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "helpdesk, notes, reader, tickets") {
		t.Errorf("Lookup(nope) = %v, want an error naming the servers", err)
	}
	if err := All()[0].Serve(context.Background(), Stdio{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, Options{}); err == nil {
		t.Error("the helpdesk served with no lesson to serve")
	}
}

// TestHTTPServersAnswer sends each HTTP server a tools/list as a client of
// 2026-07-28 would, and checks that a list comes back.
func TestHTTPServersAnswer(t *testing.T) {
	for _, s := range All() {
		if s.HTTP == nil {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			// The helpdesk serves lesson 2's data; the others need none.
			lesson := os.DirFS("../../lessons/02-json-rpc-on-the-wire")
			srv := httptest.NewServer(s.HTTP(io.Discard, Options{MaxLine: 1 << 20, Lesson: lesson}))
			defer srv.Close()
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			req, _ := http.NewRequest(http.MethodPost, srv.URL+s.Path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/list")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `"tools":[`) {
				t.Errorf("status %d, body %s; want 200 and a list of tools", resp.StatusCode, got)
			}
		})
	}
}
