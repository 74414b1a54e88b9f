package rig

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/event"
)

// patience bounds every wait in these tests: long enough for a machine
// whose cores are busy with other work, reached only when the rig is wrong.
const patience = 60 * time.Second

// shortDir is a private folder with a short path: a socket's path is
// limited to about a hundred bytes.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "rig")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// echoServer sends every line it reads back as it is, and says on done
// when it has returned.
func echoServer(done chan<- struct{}) func(ctx context.Context, in io.Reader, out, log io.Writer) error {
	return func(ctx context.Context, in io.Reader, out, log io.Writer) error {
		if done != nil {
			defer func() { done <- struct{}{} }()
		}
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			if _, err := fmt.Fprintf(out, "%s\n", sc.Bytes()); err != nil {
				return err
			}
		}
		return sc.Err()
	}
}

// eventLog collects the events a rig reports as they happen.
type eventLog chan event.Record

func newEventLog() eventLog { return make(eventLog, 10000) }

func (l eventLog) record(e event.Record) { l <- e }

// waitFor returns the events reported up to and including the first one
// of kind.
func (l eventLog) waitFor(t *testing.T, kind event.Kind) []event.Record {
	t.Helper()
	var seen []event.Record
	timeout := time.After(patience)
	for {
		select {
		case e := <-l:
			seen = append(seen, e)
			if e.Kind == kind {
				return seen
			}
		case <-timeout:
			t.Fatalf("no %s event after %v; saw %+v", kind, patience, seen)
		}
	}
}

// untimed drops the times of events, which no test can predict, and the
// mark that the lab played their server, which every event of the rig's
// carries (sameEvents checks it).
func untimed(evs []event.Record) []event.Record {
	out := make([]event.Record, len(evs))
	for i, e := range evs {
		e.At = 0
		e.Played = false
		out[i] = e
	}
	return out
}

func sameEvents(t *testing.T, what string, got, want []event.Record) {
	t.Helper()
	for _, e := range got {
		if !e.Played {
			t.Errorf("%s: an event of the rig's is not marked Played: %+v", what, e)
		}
	}
	got = untimed(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: events\n%s\nwant\n%s", what, dumpEvents(got), dumpEvents(want))
	}
}

func dumpEvents(evs []event.Record) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "  %s #%d %s %d %q %v\n", e.Server, e.Conn, e.Kind, e.Status, e.Text, e.Header)
	}
	return b.String()
}

// relayRun is a Relay running in this process, as `lab relay SOCKET`
// would run in a client's child process.
type relayRun struct {
	stdin  *io.PipeWriter
	stdout *bufio.Reader
	cancel context.CancelFunc
	done   chan error
}

func startRelay(t *testing.T, socket string) *relayRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	rr := &relayRun{stdin: inW, stdout: bufio.NewReader(outR), cancel: cancel, done: make(chan error, 1)}
	go func() {
		err := Relay(ctx, socket, inR, outW)
		outW.Close()
		inR.Close()
		rr.done <- err
	}()
	t.Cleanup(func() { cancel(); inW.Close() })
	return rr
}

func (rr *relayRun) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(rr.stdin, line+"\n"); err != nil {
		t.Fatalf("writing to the relay: %v", err)
	}
}

func (rr *relayRun) readLine(t *testing.T) string {
	t.Helper()
	line, err := rr.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the relay's stdout: %q, %v", line, err)
	}
	return strings.TrimSuffix(line, "\n")
}

func (rr *relayRun) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-rr.done:
		return err
	case <-time.After(patience):
		t.Fatalf("the relay did not end within %v", patience)
		return nil
	}
}

// waitOpen waits until the rig has n stdio connections open.
func waitOpen(t *testing.T, r *Rig, n int) {
	t.Helper()
	timeout := time.After(patience)
	for {
		open, changed := r.OpenStdio()
		if open == n {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("%d stdio connections open, want %d", open, n)
		}
	}
}

// settledGoroutines waits until at most n goroutines run, and returns how
// many do: goroutines that were told to end take a moment to be gone.
func settledGoroutines(n int) int {
	deadline := time.Now().Add(patience)
	for {
		got := runtime.NumGoroutine()
		if got <= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A line a client sends through the relay reaches the server and its
// answer comes back; a held call is never passed on while the next call
// is; the end of stdin is an eof event but the connection stays until the
// relay ends; and every step is recorded, in order.
func TestStdioThroughRelay(t *testing.T) {
	before := runtime.NumGoroutine()
	evs := newEventLog()
	served := make(chan struct{}, 4)
	r, err := Start(context.Background(), []Server{{Alias: "echo", Stdio: echoServer(served), Hold: CallOf("slow")}},
		Options{Dir: shortDir(t), Relay: []string{"lab", "relay"}, OnEvent: evs.record})
	if err != nil {
		t.Fatal(err)
	}
	sock := configArg(t, r.Config())

	rr := startRelay(t, sock)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	slow := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
	fast := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fast","arguments":{}}}`
	rr.send(t, ping)
	if got := rr.readLine(t); got != ping {
		t.Fatalf("the echo came back as %q, want %q", got, ping)
	}
	rr.send(t, slow)
	rr.send(t, fast)
	// The held call never reaches the server, so the next line that
	// comes back is the answer to the call after it.
	if got := rr.readLine(t); got != fast {
		t.Fatalf("after a held call the relay gave %q, want the next call's answer %q", got, fast)
	}
	rr.stdin.Close()
	evs.waitFor(t, event.Close)
	// The server saw its input end and returned; the connection is still
	// there because the relay is: a server a client does not end lives on.
	select {
	case <-served:
	case <-time.After(patience):
		t.Fatal("the server did not see its input end")
	}
	if open, _ := r.OpenStdio(); open != 1 {
		t.Errorf("%d stdio connections open after stdin ended, want 1 (the relay still runs)", open)
	}
	for _, e := range r.Events() {
		if e.Kind == event.Exit {
			t.Fatalf("a gone event while the relay still runs: %+v", e)
		}
	}
	rr.cancel()
	if err := rr.wait(t); err != nil {
		t.Errorf("the relay ended with %v, want nil when its context ends", err)
	}
	waitOpen(t, r, 0)
	held := "the rig holds this call of slow and will never answer it"
	sameEvents(t, "first start", r.Events(), []event.Record{
		{Server: "echo", Conn: 1, Kind: event.Start},
		{Server: "echo", Conn: 1, Kind: event.Send, Text: ping},
		{Server: "echo", Conn: 1, Kind: event.Answer, Text: ping},
		{Server: "echo", Conn: 1, Kind: event.Send, Text: slow},
		{Server: "echo", Conn: 1, Kind: event.Held, Text: held},
		{Server: "echo", Conn: 1, Kind: event.Send, Text: fast},
		{Server: "echo", Conn: 1, Kind: event.Answer, Text: fast},
		{Server: "echo", Conn: 1, Kind: event.Close},
		{Server: "echo", Conn: 1, Kind: event.Exit},
	})

	rr2 := checkSecondStartEndsAtClose(t, r, sock, ping)
	// A relay started after Close finds no server.
	if err := Relay(context.Background(), sock, strings.NewReader(""), io.Discard); err == nil {
		t.Error("a relay reached a closed rig")
	}
	rr.stdin.Close()
	rr2.stdin.Close()
	if after := settledGoroutines(before + 2); after > before+2 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before the rig, %d after Close:\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// checkSecondStartEndsAtClose starts a second relay on the rig of
// TestStdioThroughRelay, after the first has ended: it is connection 2;
// Close ends it while it runs, and its relay ends cleanly. It returns the
// relay, for the goroutine count at the end.
func checkSecondStartEndsAtClose(t *testing.T, r *Rig, sock, ping string) *relayRun {
	t.Helper()
	rr2 := startRelay(t, sock)
	rr2.send(t, ping)
	if got := rr2.readLine(t); got != ping {
		t.Fatalf("second start: the echo came back as %q", got)
	}
	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(patience):
		t.Fatal("Close did not return while a relay was connected")
	}
	if err := rr2.wait(t); err != nil {
		t.Errorf("the relay ended with %v when the rig closed, want nil", err)
	}
	if open, _ := r.OpenStdio(); open != 0 {
		t.Errorf("%d stdio connections open after Close", open)
	}
	evs2 := r.Events()[9:]
	sameEvents(t, "second start", evs2, []event.Record{
		{Server: "echo", Conn: 2, Kind: event.Start},
		{Server: "echo", Conn: 2, Kind: event.Send, Text: ping},
		{Server: "echo", Conn: 2, Kind: event.Answer, Text: ping},
		{Server: "echo", Conn: 2, Kind: event.Exit},
	})
	return rr2
}

// configArg returns the socket a one-server configuration passes its relay.
func configArg(t *testing.T, cfg []byte) string {
	t.Helper()
	m := regexp.MustCompile(`"args": \[(?:"[^"]*",)*"([^"]*\.sock)"\]`).FindSubmatch(cfg)
	if m == nil {
		t.Fatalf("no socket in the configuration:\n%s", cfg)
	}
	return string(m[1])
}

// The configuration names every server in the order given, each entry's
// members in the order command, args, url, timeoutMs.
func TestConfigBytes(t *testing.T) {
	dir := shortDir(t)
	h := echoHandler{}
	r, err := Start(context.Background(), []Server{
		{Alias: "notes", Stdio: echoServer(nil), Timeout: 1500 * time.Millisecond},
		{Alias: "tickets", HTTP: h, Path: "/api/mcp"},
		{Alias: "gone <stdio>", Stdio: echoServer(nil), Down: true},
		{Alias: "gone-http", HTTP: h, Down: true, Timeout: 2 * time.Second},
		{Alias: "a", Stdio: echoServer(nil)},
	}, Options{Dir: dir, Relay: []string{"/usr/bin/lab", "relay", "--quiet"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	bridges := r.Bridges()
	if len(bridges) != 1 || bridges[0].Socket != dir+"/h1.sock" {
		t.Fatalf("bridges %+v, want one, at %s/h1.sock", bridges, dir)
	}
	downURL := regexp.MustCompile(`"url": "(http://127\.0\.0\.1:\d+/mcp)"`).FindSubmatch(r.Config())
	if downURL == nil {
		t.Fatalf("no URL for the server that is down:\n%s", r.Config())
	}
	want := `{"servers": {
  "notes": {"command": "/usr/bin/lab", "args": ["relay","--quiet","` + dir + `/s0.sock"], "timeoutMs": 1500},
  "tickets": {"url": "http://` + bridges[0].Addr + `/api/mcp"},
  "gone \u003cstdio\u003e": {"command": "` + dir + `/no-server-2", "args": []},
  "gone-http": {"url": "` + string(downURL[1]) + `", "timeoutMs": 2000},
  "a": {"command": "/usr/bin/lab", "args": ["relay","--quiet","` + dir + `/s4.sock"]}
}}
`
	if got := string(r.Config()); got != want {
		t.Errorf("configuration\n%s\nwant\n%s", got, want)
	}
	// The server that is down is listed at a port where nobody listens.
	addr := strings.TrimSuffix(strings.TrimPrefix(string(downURL[1]), "http://"), "/mcp")
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("the server that is down accepted a connection at %s", addr)
	}
	// And the stdio one that is down names a command that does not exist.
	if _, err := os.Stat(dir + "/no-server-2"); !os.IsNotExist(err) {
		t.Errorf("the missing command exists: %v", err)
	}
	for _, f := range []string{"s0.sock", "s4.sock", "h1.sock"} {
		fi, err := os.Stat(dir + "/" + f)
		if err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a socket only its owner reaches (0700)", f, fi.Mode(), err)
		}
	}
}

// Start refuses what it cannot play, naming the problem.
func TestStartRefuses(t *testing.T) {
	for _, tt := range []struct {
		name    string
		servers []Server
		opts    Options
		want    string
	}{
		{"no folder", []Server{{Alias: "a", Stdio: echoServer(nil)}}, Options{Relay: []string{"lab"}}, "the rig needs a folder of its own"},
		{"alias twice", []Server{{Alias: "a", HTTP: echoHandler{}}, {Alias: "a", HTTP: echoHandler{}}}, Options{Dir: shortDir(t)}, `the alias "a" is given twice`},
		{"no relay", []Server{{Alias: "a", Stdio: echoServer(nil)}}, Options{Dir: shortDir(t)}, "starting server a: no relay command to reach a stdio server"},
		{"no side", []Server{{Alias: "a"}}, Options{Dir: shortDir(t)}, "starting server a: the server has neither a stdio nor an HTTP side"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Start(context.Background(), tt.servers, tt.opts)
			if err == nil {
				r.Close()
				t.Fatal("started")
			}
			if err.Error() != tt.want {
				t.Errorf("error %q, want %q", err, tt.want)
			}
		})
	}
}

// A recorded line longer than MaxLine is cut in the record, and the server
// still gets it whole.
func TestLongLineCutInRecord(t *testing.T) {
	evs := newEventLog()
	r, err := Start(context.Background(), []Server{{Alias: "echo", Stdio: echoServer(nil)}},
		Options{Dir: shortDir(t), Relay: []string{"lab", "relay"}, MaxLine: 10, OnEvent: evs.record})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rr := startRelay(t, configArg(t, r.Config()))
	line := "0123456789abcdef"
	rr.send(t, line)
	if got := rr.readLine(t); got != line {
		t.Fatalf("the server's answer %q, want the whole line %q", got, line)
	}
	got := untimed(evs.waitFor(t, event.Answer))
	want := []event.Record{
		{Server: "echo", Conn: 1, Kind: event.Start},
		{Server: "echo", Conn: 1, Kind: event.Send, Text: "0123456789... [6 more bytes not kept]"},
		{Server: "echo", Conn: 1, Kind: event.Answer, Text: "0123456789... [6 more bytes not kept]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n%s\nwant\n%s", dumpEvents(got), dumpEvents(want))
	}
}

// A relay that ends without passing on the end of stdin (the client
// killed its server) ends the connection: the server's input ends, and
// the rig records gone with no eof, since the client never closed stdin.
func TestRelayKilled(t *testing.T) {
	evs := newEventLog()
	served := make(chan struct{}, 1)
	r, err := Start(context.Background(), []Server{{Alias: "echo", Stdio: echoServer(served)}},
		Options{Dir: shortDir(t), Relay: []string{"lab", "relay"}, OnEvent: evs.record})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rr := startRelay(t, configArg(t, r.Config()))
	// The last line has no newline: the rig passes it on when the
	// connection ends.
	if _, err := io.WriteString(rr.stdin, "partial line\nno newline"); err != nil {
		t.Fatal(err)
	}
	if got := rr.readLine(t); got != "partial line" {
		t.Fatalf("echo %q", got)
	}
	evs.waitFor(t, event.Answer)
	rr.cancel()
	if err := rr.wait(t); err != nil {
		t.Errorf("the relay ended with %v", err)
	}
	got := untimed(evs.waitFor(t, event.Exit))
	want := []event.Record{
		{Server: "echo", Conn: 1, Kind: event.Send, Text: "no newline"},
		{Server: "echo", Conn: 1, Kind: event.Answer, Text: "no newline"},
		{Server: "echo", Conn: 1, Kind: event.Exit},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events after the relay ended\n%s\nwant\n%s", dumpEvents(got), dumpEvents(want))
	}
	select {
	case <-served:
	case <-time.After(patience):
		t.Fatal("the server's input did not end with its relay")
	}
}
