package tickets

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The ticket system with its default bounds: a chunk size past 64 bits
// (it was answered 200 with an empty body) and the Content-Length of the
// 16 MiB flood are answered 400 with a JSON-RPC error, id null, and the
// connection closes.
func TestBrokenUploads(t *testing.T) {
	srv := httptest.NewServer(Handler(nil))
	defer srv.Close()
	const head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
	for _, tt := range []struct{ name, req, want string }{
		{"chunk size past 64 bits", head + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body could not be read after 0 bytes: http chunk length too large; a chunked body is chunks each led by its size in hexadecimal, ended by a chunk of size 0"}}` + "\n"},
		{"16 MiB less one byte", head + "Content-Length: 16777215\r\n\r\n{",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the Content-Length of 16777215 bytes is more than the 1048576 bytes this server reads for one message; send one JSON-RPC request per POST (a request is a few kilobytes at most)"}}` + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Minute))
			if _, err := io.WriteString(c, tt.req); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || !resp.Close || string(body) != tt.want {
				t.Errorf("got %d %v\n%s\nwant 400, Content-Type: application/json, Connection: close\n%s", resp.StatusCode, resp.Header, body, tt.want)
			}
			if n, err := br.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("after the answer, read %d bytes, %v; want the connection closed", n, err)
			}
		})
	}
}
