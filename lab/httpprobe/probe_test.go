package httpprobe_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/httpbound"
	"github.com/mcplab/mcplab/lab/httpprobe"
)

// generous bounds a wait only a broken probe would reach.
const generous = time.Minute

// rawServer answers each connection with answer, after reading the
// request's head (and its body when read is set); it returns its address
// and the heads it read.
func rawServer(t *testing.T, read bool, answer string) (string, func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var heads []string
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(generous))
				br := bufio.NewReader(c)
				var head strings.Builder
				length := 0
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					head.WriteString(line)
					if n, ok := strings.CutPrefix(line, "Content-Length: "); ok {
						fmt.Sscan(n, &length)
					}
					if line == "\r\n" {
						break
					}
				}
				mu.Lock()
				heads = append(heads, head.String())
				mu.Unlock()
				if read {
					io.CopyN(io.Discard, br, int64(length))
				}
				io.WriteString(c, answer)
			}()
		}
	}()
	return ln.Addr().String(), func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), heads...) }
}

func probe(records *[]event.Record) *httpprobe.Probe {
	var mu sync.Mutex
	return httpprobe.New(httpbound.Answer{Idle: generous, Total: generous}, generous, time.Now(), func(r event.Record) {
		mu.Lock()
		defer mu.Unlock()
		*records = append(*records, r)
	})
}

// The request goes out with its header lines in order and case as
// written, then the lab's Content-Length and Connection: close; the
// answer's JSON body is its one message, and the records say what
// crossed, as fields.
func TestRequestAsWrittenAndRecords(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{}}`
	addr, heads := rawServer(t, true, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+fmt.Sprint(len(body))+"\r\n\r\n"+body)
	var recs []event.Record
	p := probe(&recs)
	req := httpprobe.Request{Method: "POST", Path: "/mcp", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"x"}`),
		Header: []httpprobe.Field{{Name: "mcp-method", Value: "x"}, {Name: "Accept", Value: "application/json"}}}
	a := p.Do(context.Background(), "a", 1, addr, req, json.RawMessage(`1`))
	if a.Err != nil || a.Status != 200 || a.MediaType != "application/json" || len(a.Messages) != 1 {
		t.Fatalf("answer %+v", a)
	}
	if m, i := a.Response(json.RawMessage(`1`)); i != 0 || m.Text != body {
		t.Errorf("response %d %q", i, m.Text)
	}
	want := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nmcp-method: x\r\nAccept: application/json\r\nUser-Agent: mcplab-grader\r\nContent-Length: 37\r\nConnection: close\r\n\r\n"
	if got := heads(); len(got) != 1 || got[0] != want {
		t.Errorf("the server read %q\nwant %q", got, want)
	}
	var kinds []string
	for _, r := range recs {
		kinds = append(kinds, fmt.Sprintf("%s %s#%d %d %q", r.Kind, r.Server, r.Conn, r.Status, r.Text))
	}
	wantKinds := []string{
		`post a#1 0 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}"`,
		`status a#1 200 "application/json"`,
		`answer a#1 0 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"`,
	}
	if strings.Join(kinds, "\n") != strings.Join(wantKinds, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(kinds, "\n"), strings.Join(wantKinds, "\n"))
	}
	if recs[0].Header.Get("Mcp-Method") != "x" || recs[0].Header.Get(":path") != "/mcp" {
		t.Errorf("the request's record has headers %v", recs[0].Header)
	}
}

// An event stream's events are the messages, in order; one that stays
// open after the response is read no longer than the end wait and said so.
func TestStreamOpenAfterResponse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"+
			"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"+
			"data: {\"jsonrpc\":\"2.0\",\"id\":\"s\",\"result\":{}}\n\n")
		<-done // the stream stays open
	}()
	var recs []event.Record
	p := httpprobe.New(httpbound.Answer{Idle: generous, Total: generous}, 50*time.Millisecond, time.Now(), func(r event.Record) { recs = append(recs, r) })
	a := p.Do(context.Background(), "b", 2, ln.Addr().String(), httpprobe.Request{Method: "POST", Path: "/mcp", Body: []byte(`{}`)}, json.RawMessage(`"s"`))
	if !a.Stream || !a.OpenAfterResponse || a.Err != nil || len(a.Messages) != 2 {
		t.Fatalf("answer %+v", a)
	}
	if _, i := a.Response(json.RawMessage(`"s"`)); i != 1 {
		t.Errorf("response at %d, want 1", i)
	}
}

// A server that answers 413 before it reads the body, and closes, has its
// answer read: the write the close breaks is no failure of its own.
func TestAnswerBeforeBody(t *testing.T) {
	addr, _ := rawServer(t, false, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	var recs []event.Record
	p := probe(&recs)
	big := strings.Repeat("x", 2<<20)
	a := p.Do(context.Background(), "a", 1, addr, httpprobe.Request{Method: "POST", Path: "/mcp", Body: []byte(big)}, nil)
	if a.Status != 413 {
		t.Fatalf("status %d, err %v; want 413", a.Status, a.Err)
	}
}

// Headers past the bound are refused as the header bound.
func TestHeaderBound(t *testing.T) {
	addr, _ := rawServer(t, true, "HTTP/1.1 200 OK\r\nX-Long: "+strings.Repeat("y", 200)+"\r\n\r\n")
	p := httpprobe.New(httpbound.Answer{MaxHeaderBytes: 64, Idle: generous, Total: generous}, generous, time.Now(), nil)
	a := p.Do(context.Background(), "a", 1, addr, httpprobe.Request{Method: "GET", Path: "/mcp"}, nil)
	if a.Status != 0 || a.Err == nil || !strings.Contains(a.Err.Error(), "headers are longer than the 64 bytes") {
		t.Fatalf("status %d, err %v; want the header bound", a.Status, a.Err)
	}
}

// An answer that never comes ends at the idle bound, as a deadline.
func TestIdleBound(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c) // reads, never answers
		}
	}()
	p := httpprobe.New(httpbound.Answer{Idle: 50 * time.Millisecond, Total: generous}, generous, time.Now(), nil)
	a := p.Do(context.Background(), "a", 1, ln.Addr().String(), httpprobe.Request{Method: "POST", Path: "/mcp", Body: []byte("{}")}, nil)
	if a.Status != 0 || !a.Deadline {
		t.Fatalf("status %d, deadline %v, err %v; want a deadline", a.Status, a.Deadline, a.Err)
	}
}
