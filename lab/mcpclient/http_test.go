package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/wire"
)

// rawHTTP is a loopback HTTP server that records each request exactly as
// it came off the socket and answers with raw bytes the test chose.
type rawHTTP struct {
	url      string
	host     string
	requests chan string
}

// newRawHTTP starts the server; answer gets the parsed request and returns
// the raw response to write, after which the connection is closed.
func newRawHTTP(t *testing.T, answer func(r *http.Request, body []byte) string) *rawHTTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &rawHTTP{url: "http://" + ln.Addr().String() + "/mcp", host: ln.Addr().String(), requests: make(chan string, 10)}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				var raw bytes.Buffer
				br := bufio.NewReader(io.TeeReader(conn, &raw))
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				body, _ := io.ReadAll(req.Body)
				s.requests <- strings.ReplaceAll(raw.String(), s.host, "HOST")
				io.WriteString(conn, answer(req, body))
			}()
		}
	}()
	return s
}

func httpClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := Connect(context.Background(), &HTTP{URL: url}, Options{Timeout: patience})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

const jsonOK = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"

// sse writes an event-stream answer whose body ends when the connection
// closes.
func sse(events ...string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + strings.Join(events, "")
}

func TestHTTPRequestBytes(t *testing.T) {
	srv := newRawHTTP(t, func(r *http.Request, body []byte) string {
		return jsonOK + `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}]}}`
	})
	c := httpClient(t, srv.url)
	if _, err := c.CallTool(context.Background(), "search", map[string]string{"query": "disk"}); err != nil {
		t.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"disk"},` + metaJSON + `}}}`
	want := "POST /mcp HTTP/1.1\r\n" +
		"Host: HOST\r\n" +
		"User-Agent: mcplab\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n" +
		"Accept: application/json, text/event-stream\r\n" +
		"Content-Type: application/json\r\n" +
		"MCP-Protocol-Version: 2026-07-28\r\n" +
		"Mcp-Method: tools/call\r\n" +
		"Mcp-Name: search\r\n" +
		"Accept-Encoding: gzip\r\n" +
		"\r\n" + body
	if got := <-srv.requests; got != want {
		t.Errorf("sent\n%s\nwant\n%s", got, want)
	}
}

// The official vectors of the specification, and a tool name with accents.
func TestHeaderValue(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"créer_ticket", "=?base64?Y3LDqWVyX3RpY2tldA==?="},
		{"a b", "a b"},
		{"", ""},
	} {
		if got := HeaderValue(tt.in); got != tt.want {
			t.Errorf("HeaderValue(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHTTPNonASCIINameUsesSentinel(t *testing.T) {
	srv := newRawHTTP(t, func(r *http.Request, body []byte) string {
		return jsonOK + `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`
	})
	c := httpClient(t, srv.url)
	if _, err := c.CallTool(context.Background(), "créer_ticket", nil); err != nil {
		t.Fatal(err)
	}
	if got := <-srv.requests; !strings.Contains(got, "\r\nMcp-Name: =?base64?Y3LDqWVyX3RpY2tldA==?=\r\n") {
		t.Errorf("sent\n%s", got)
	}
}

// The response is the message with the request's id, wherever it falls:
// a progress notification before it and a log notification after it are
// counted, and a stray response for another id is not taken.
func TestHTTPEventStream(t *testing.T) {
	srv := newRawHTTP(t, func(r *http.Request, body []byte) string {
		return sse(
			": keep-alive\n\n",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1,\"message\":\"looking up the ticket system\"}}\n\n",
			"data: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{\"resultType\":\"complete\",\"content\":[]}}\n\n",
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"T-1 disk full\"}]}}\r\n\r\n",
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"done\"}}\n\n",
		)
	})
	c := httpClient(t, srv.url)
	r, err := c.CallTool(context.Background(), "search", nil, WithProgress(), WithLogLevel("info"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "T-1 disk full" {
		t.Errorf("text %q", r.Text())
	}
	if n := r.Reply.NotificationCount; n != 2 || r.Reply.Notifications[0].Method != "notifications/progress" || r.Reply.Notifications[1].Method != "notifications/message" {
		t.Errorf("counted %d notifications: %v", n, r.Reply.Notifications)
	}
}

func TestHTTPStreamFailures(t *testing.T) {
	progress := "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n"
	for _, tt := range []struct {
		name, answer, want string
	}{
		{"ends before the response", sse(progress), "the event stream ended after 1 message and before the response to request 1"},
		{"half an event", sse(progress, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"), "an event without its closing blank line was dropped"},
		{"breaks", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			strconv.FormatInt(int64(len(progress)), 16) + "\r\n" + progress + "\r\n", "the event stream broke after 1 message"},
		{"server error", "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nupstream down", "502 Bad Gateway: upstream down"},
		{"json without response", jsonOK + `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, "holds no response to request 1"},
		{"not json", jsonOK + `<html>`, "not a JSON-RPC message"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawHTTP(t, func(*http.Request, []byte) string { return tt.answer })
			c := httpClient(t, srv.url)
			_, err := c.CallTool(context.Background(), "search", nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			var te *TimeoutError
			if errors.As(err, &te) {
				t.Fatal("a broken exchange waited out the timeout")
			}
		})
	}
}

// A header mismatch comes back as the server's error, -32020 with 400.
func TestHTTPErrorAnswer(t *testing.T) {
	srv := newRawHTTP(t, func(*http.Request, []byte) string {
		return "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" +
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"}}`
	})
	c := httpClient(t, srv.url)
	_, err := c.CallTool(context.Background(), "bar", nil)
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeHeaderMismatch {
		t.Fatalf("got %v", err)
	}
}

// Nothing listening: the request fails at once, and the next one may work.
func TestHTTPConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	c := httpClient(t, url)
	_, err = c.ListTools(context.Background())
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("got %v", err)
	}
}

func TestHTTPBadURL(t *testing.T) {
	for _, u := range []string{"127.0.0.1:3115/mcp", "ftp://x/mcp", "http://"} {
		if _, err := Connect(context.Background(), &HTTP{URL: u}, Options{}); err == nil {
			t.Errorf("%q was accepted", u)
		}
	}
}
