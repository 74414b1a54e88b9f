//go:build unix

package rig

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
)

// rawAnswer is an HTTP answer read off a connection: its status line and
// body, or how the connection ended without one.
type rawAnswer struct {
	status string
	body   string
	err    error
}

// rawExchange writes raw on a new connection to the socket, then reads one
// answer, within patience.
func rawExchange(t *testing.T, socket, raw string) (net.Conn, rawAnswer) {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	return c, readAnswer(c)
}

func readAnswer(c net.Conn) rawAnswer {
	c.SetReadDeadline(time.Now().Add(patience))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return rawAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rawAnswer{status: resp.Status, body: string(b), err: err}
}

func rpcError(why string) string {
	return `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"` + why + `"}}` + "\n"
}

const postHead = "POST /mcp HTTP/1.1\r\nHost: rig\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n"

// A body longer than MaxBody is answered 413 with a JSON-RPC error,
// whether its Content-Length says so (at once, unread) or it goes on in
// chunks past the bound; headers past MaxHeaderBytes get 431.
func TestHTTPBodyTooLarge(t *testing.T) {
	r := startTickets(t, Options{})
	sock := r.Bridges()[0].Socket
	_, got := rawExchange(t, sock, postHead+fmt.Sprintf("Content-Length: %d\r\n\r\n", 4<<20))
	want := rawAnswer{status: "413 Request Entity Too Large", body: rpcError(fmt.Sprintf("the request's body is %d bytes (Content-Length); the servers the lab plays take at most %d (an MCP request is small)", 4<<20, MaxBody))}
	if got != want {
		t.Errorf("a 4 MiB Content-Length: %+v, want %+v", got, want)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		io.WriteString(c, postHead+"Transfer-Encoding: chunked\r\n\r\n")
		chunk := fmt.Sprintf("%x\r\n%s\r\n", 64<<10, strings.Repeat("x", 64<<10))
		for range 20 {
			if _, err := io.WriteString(c, chunk); err != nil {
				return
			}
		}
	}()
	got = readAnswer(c)
	want = rawAnswer{status: "413 Request Entity Too Large", body: rpcError(fmt.Sprintf("the request's body goes on past %d bytes; the servers the lab plays take at most that (an MCP request is small)", MaxBody))}
	if got != want {
		t.Errorf("a chunked body past the bound: %+v, want %+v", got, want)
	}
	_, got = rawExchange(t, sock, postHead+"X-Big: "+strings.Repeat("h", 2*MaxHeaderBytes)+"\r\nContent-Length: 2\r\n\r\n{}")
	if got.status != "431 Request Header Fields Too Large" {
		t.Errorf("headers past the bound: %+v, want 431", got)
	}
	for _, e := range r.Events() {
		if e.Kind == event.Post && len(e.Text) > 0 {
			t.Errorf("the rig recorded a body it refused: %d bytes", len(e.Text))
		}
	}
}

// A body that stops coming is answered 408 at the read timeout, headers
// that stop coming end the connection then; meanwhile the server still
// answers a whole request at once.
func TestHTTPBodyTooSlow(t *testing.T) {
	r := startTickets(t, Options{ReadTimeout: 300 * time.Millisecond})
	sock := r.Bridges()[0].Socket
	start := time.Now()
	_, got := rawExchange(t, sock, postHead+"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
	want := rawAnswer{status: "408 Request Timeout", body: rpcError("the request's body did not arrive within 300ms (11 bytes came); send the whole body at once, as its Content-Length says")}
	if got != want {
		t.Errorf("a stalled body: %+v, want %+v", got, want)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("answered after %v, before the read timeout", d)
	}
	_, got = rawExchange(t, sock, "POST /mcp HTTP/1.1\r\nHost: rig\r\n")
	if got.err == nil {
		t.Errorf("stalled headers got an answer: %+v, want the connection dropped", got)
	}
	var refused []string
	for _, e := range r.Events() {
		if e.Kind == event.Refused {
			refused = append(refused, fmt.Sprintf("%d %s", e.Status, e.Text))
		}
	}
	if len(refused) != 1 || !strings.HasPrefix(refused[0], "408 the request's body did not arrive") {
		t.Errorf("refused events %q, want the one 408", refused)
	}
}

// 150 connections to the server's socket, each with a long body that
// never ends, cost the rig bounded memory (the part of each body past
// 16 KiB needs a share of MaxHeldBodies), and a correct request on a
// later connection is answered at once, long before the read timeout.
// Once the timeout passes, every stalled connection is answered (408, or
// 503 for one that never got a share) and closed.
func TestHTTPFloodThenCorrectRequest(t *testing.T) {
	const flood = 150
	timeout := 20 * time.Second
	r := startTickets(t, Options{ReadTimeout: timeout})
	sock := r.Bridges()[0].Socket
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	part := strings.Repeat("x", 64<<10)
	conns := make([]net.Conn, flood)
	var wrote sync.WaitGroup
	for i := range conns {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
		wrote.Add(1)
		go func() {
			defer wrote.Done()
			// 4 MiB is refused at once; 1 MiB is taken, and held.
			io.WriteString(c, postHead+fmt.Sprintf("Content-Length: %d\r\n\r\n", MaxBody)+part)
		}()
	}
	wrote.Wait()
	// Causally: every share is taken and every other body waits for one.
	share := int64(MaxBody - freeBody)
	holders := int(MaxHeldBodies / share)
	deadline := time.After(patience)
	for {
		g, changed := r.bodies.Watch()
		free := MaxHeldBodies - g.Held
		if free < share && g.Waiting == flood-holders {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the flood did not settle: %d bytes free, %d waiting; want %d waiting", free, g.Waiting, flood-holders)
		}
	}
	asked := time.Now()
	got := post(t, "unix", sock, "/mcp", listHeader, listBody)
	if took := time.Since(asked); got.resp.StatusCode != 200 || took >= timeout {
		t.Errorf("the correct request after the flood: status %d after %v, want 200 before the read timeout (%v)", got.resp.StatusCode, took, timeout)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	const bound = 48 << 20
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > bound {
		t.Errorf("the rig's heap grew by %d MiB under the flood, want at most %d MiB", grew>>20, bound>>20)
	} else {
		t.Logf("heap growth under a flood of %d connections: %.1f MiB", flood, float64(grew)/(1<<20))
	}
	// At the read timeout, each stalled connection is answered and closed.
	statuses := map[string]int{}
	var mu sync.Mutex
	var answered sync.WaitGroup
	for _, c := range conns {
		answered.Add(1)
		go func() {
			defer answered.Done()
			a := readAnswer(c)
			mu.Lock()
			statuses[a.status]++
			mu.Unlock()
		}()
	}
	answered.Wait()
	if statuses["408 Request Timeout"]+statuses["503 Service Unavailable"] != flood || statuses["408 Request Timeout"] < holders {
		t.Errorf("the stalled connections were answered %v, want %d in all, 408 or 503, at least %d of them 408", statuses, flood, holders)
	}
}

// The rig's sockets belong to the client's user (Owner), mode 0700, and
// the rig takes only a folder of its own (mode 0700, not a link).
func TestSocketsBelongToOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving sockets to another user needs root")
	}
	dir := shortDir(t)
	const uid = 54321
	r, err := Start(context.Background(), []Server{{Alias: "tickets", HTTP: ticketsHandler(t)}, {Alias: "echo", Stdio: echoServer(nil)}},
		Options{Dir: dir, Relay: []string{"/usr/bin/lab", "relay"}, Owner: &Owner{UID: uid, GID: uid}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, f := range []string{"h0.sock", "s1.sock"} {
		st, err := os.Lstat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		sys := st.Sys().(*syscall.Stat_t)
		if st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o700 || sys.Uid != uid || sys.Gid != uid {
			t.Errorf("%s: %v uid %d gid %d, want a socket of mode 0700 owned by %d", f, st.Mode(), sys.Uid, sys.Gid, uid)
		}
	}
	open := shortDir(t)
	os.Chmod(open, 0o755)
	link := filepath.Join(shortDir(t), "link")
	os.Symlink(dir, link)
	for _, d := range []string{open, link} {
		if _, err := Start(context.Background(), nil, Options{Dir: d}); err == nil || !strings.Contains(err.Error(), "want a folder of mode 0700 (not a link)") {
			t.Errorf("Start in %s: %v, want it refused", d, err)
		}
	}
}

// Past a server's cap on events, events are counted, not kept: the
// record ends with a summary, and a server's end is still recorded.
func TestRecordCapCounts(t *testing.T) {
	var notes []event.Record
	var mu sync.Mutex
	dir := shortDir(t)
	r, err := Start(context.Background(), []Server{{Alias: "echo", Stdio: echoServer(nil)}}, Options{Dir: dir, Relay: []string{"x"}, OnEvent: func(e event.Record) {
		if e.Kind == event.NotKept {
			mu.Lock()
			notes = append(notes, e)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rr := startRelay(t, filepath.Join(dir, "s0.sock"))
	const lines = MaxEventsPerServer/2 + 100 // each is sent, then echoed
	for i := range lines {
		rr.send(t, fmt.Sprintf("line %d", i))
		rr.readLine(t)
	}
	rr.cancel()
	rr.wait(t)
	waitOpen(t, r, 0)
	evs := r.Events()
	var data, gone int
	for _, e := range evs {
		switch e.Kind {
		case event.Send, event.Answer:
			data++
		case event.Exit:
			gone++
		}
	}
	last := evs[len(evs)-1]
	lost := 2*lines - MaxEventsPerServer
	wantText := fmt.Sprintf("%d more events (%d bytes) not kept: the record of a server keeps at most %d messages and %d MiB, and of a rig %d messages and %d MiB", lost, lostBytes(lines), MaxEventsPerServer, MaxKeptPerServer>>20, MaxEvents, MaxKept>>20)
	if data != MaxEventsPerServer || gone != 1 || last.Kind != event.NotKept || last.Text != wantText {
		t.Errorf("%d messages and %d ends kept, last %+v; want %d, 1, and %q", data, gone, last, MaxEventsPerServer, wantText)
	}
	if len(notes) != 1 {
		t.Errorf("notes %+v, want one that the record is full", notes)
	}
}

// lostBytes is the size of the sends and echoes past the cap, of lines
// "line N" for N from MaxEventsPerServer/2 up to lines.
func lostBytes(lines int) int {
	n := 0
	for i := MaxEventsPerServer / 2; i < lines; i++ {
		n += 2 * len(fmt.Sprintf("line %d", i))
	}
	return n
}
