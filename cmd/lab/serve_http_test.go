package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
)

// lab serve tickets --http answers a chunk size past 64 bits with 400 and
// a JSON-RPC error (it was 200 with no body), and an upload that stalls
// does not keep the server from stopping when interrupted.
func TestServeTicketsBrokenUploads(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done, logged := serveTicketsHTTP(ctx, t)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	dial := func(req string) (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(time.Minute))
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		return c, bufio.NewReader(c)
	}
	const head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
	_, br := dial(head + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body could not be read after 0 bytes: http chunk length too large; a chunked body is chunks each led by its size in hexadecimal, ended by a chunk of size 0"}}` + "\n"
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || string(body) != want {
		t.Errorf("got %d %v\n%s\nwant 400 application/json\n%s", resp.StatusCode, resp.Header, body, want)
	}

	// An upload the handler is reading (it asked for the body: 100
	// Continue) stalls, then an interrupt: the server stops when its
	// 5 s wait for open requests ends, cutting the upload off.
	c, stalled := dial(head + "Content-Length: 100\r\nExpect: 100-continue\r\n\r\n")
	if line, err := stalled.ReadString('\n'); err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("got %q, %v; want 100 Continue", line, err)
	}
	if line, err := stalled.ReadString('\n'); err != nil || line != "\r\n" {
		t.Fatalf("got %q, %v after 100 Continue; want the end of its headers", line, err)
	}
	if _, err := io.WriteString(c, "0123456789"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK || !strings.Contains(logged(), "tickets: requests still open after 5s were cut off\ntickets: stopped\n") {
			t.Errorf("exit %d, stderr %s", code, logged())
		}
	case <-time.After(time.Minute):
		t.Fatalf("a stalled upload kept the server from stopping: %s", logged())
	}
	if _, err := stalled.ReadByte(); err == nil {
		t.Error("the stalled upload's connection is still open after the server stopped")
	}
}

// serveTicketsHTTP runs lab serve tickets --http on a free port of the
// loopback, in this process, until ctx ends. It returns the URL the server
// says it listens on, the channel its exit status comes on, and what it
// has written on stderr so far; a server that exits before it listens
// fails t.
func serveTicketsHTTP(ctx context.Context, t *testing.T) (url string, done <-chan int, logged func() string) {
	t.Helper()
	var stderr testkit.Buffer
	listening := make(chan string, 1)
	logw := writerFunc(func(p []byte) (int, error) {
		stderr.Write(p)
		if _, rest, ok := strings.Cut(string(p), "listening on "); ok {
			select {
			case listening <- strings.Fields(rest)[0]:
			default:
			}
		}
		return len(p), nil
	})
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: logw, getenv: func(string) string { return "" }}
	exited := make(chan int, 1)
	go func() { exited <- dispatch(ctx, e, []string{"serve", "tickets", "--http", "127.0.0.1:0"}) }()
	select {
	case url = <-listening:
	case code := <-exited:
		t.Fatalf("exited %d before listening: %s", code, stderr.String())
	}
	return url, exited, stderr.String
}
