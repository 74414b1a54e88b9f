package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// lab serve tickets --http answers a chunk size past 64 bits with 400 and
// a JSON-RPC error (it was 200 with no body), and an upload that stalls
// does not keep the server from stopping when interrupted.
func TestServeTicketsBrokenUploads(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var stderr strings.Builder
	logged := func() string {
		mu.Lock()
		defer mu.Unlock()
		return stderr.String()
	}
	listening := make(chan string, 1)
	logw := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		stderr.Write(p)
		mu.Unlock()
		if _, rest, ok := strings.Cut(string(p), "listening on http://"); ok {
			select {
			case listening <- strings.TrimSuffix(strings.Fields(rest)[0], "/mcp"):
			default:
			}
		}
		return len(p), nil
	})
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: logw, getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() { done <- dispatch(ctx, e, []string{"serve", "tickets", "--http", "127.0.0.1:0"}) }()
	var addr string
	select {
	case addr = <-listening:
	case code := <-done:
		t.Fatalf("exited %d before listening: %s", code, logged())
	}
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
	const head = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
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
