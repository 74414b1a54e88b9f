package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// patience bounds every wait in these tests. It is generous: tests never
// rely on it passing, only on it not passing when something is wrong.
const patience = 10 * time.Second

// fakeServer is a server at the other end of two pipes, driven line by line
// by the test.
type fakeServer struct {
	t     *testing.T
	lines chan string // what the client sent, one line each
	out   *os.File
}

// newPipeClient connects a Client through Stream to a fake server.
func newPipeClient(t *testing.T, opts Options) (*Client, *fakeServer) {
	t.Helper()
	// OS pipes, as to a real process: a write returns once the kernel has
	// the bytes, and deadlines work.
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{t: t, lines: make(chan string, 100), out: serverOut}
	go func() {
		defer close(f.lines)
		sc := bufio.NewScanner(serverIn)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.lines <- sc.Text()
		}
	}()
	c, err := Connect(context.Background(), Stream{R: clientIn, W: clientOut}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		serverOut.Close()
		clientIn.Close()
		serverIn.Close()
	})
	return c, f
}

// next returns the next line the client sent.
func (f *fakeServer) next() string {
	f.t.Helper()
	select {
	case l, ok := <-f.lines:
		if !ok {
			f.t.Fatal("the client closed its output")
		}
		return l
	case <-time.After(patience):
		f.t.Fatal("the client sent nothing")
	}
	return ""
}

// send writes raw bytes to the client, as they are.
func (f *fakeServer) send(s string) {
	f.t.Helper()
	if _, err := io.WriteString(f.out, s); err != nil {
		f.t.Fatalf("writing to the client: %v", err)
	}
}

// idOf reads the id of a request line.
func idOf(t *testing.T, line string) string {
	t.Helper()
	var m struct{ ID json.RawMessage }
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("the client sent %q, which is not JSON: %v", line, err)
	}
	return string(m.ID)
}

// logRecorder collects a client's notes.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logRecorder) has(part string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

type result struct {
	reply *Reply
	err   error
}

// goCall runs Call in the background.
func goCall(c *Client, ctx context.Context, method string, params any, opts ...CallOption) <-chan result {
	ch := make(chan result, 1)
	go func() {
		r, err := c.Call(ctx, method, params, opts...)
		ch <- result{r, err}
	}()
	return ch
}

func wait(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(patience):
		t.Fatal("the call did not return")
	}
	return result{}
}

// deadline is a context the test ends by hand, as if its deadline had
// passed: a timeout without waiting for a clock.
type deadline struct {
	context.Context
	done chan struct{}
}

func newDeadline() *deadline {
	return &deadline{Context: context.Background(), done: make(chan struct{})}
}

func (d *deadline) Done() <-chan struct{} { return d.done }
func (d *deadline) pass()                 { close(d.done) }

func (d *deadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
