// Package rig plays MCP servers for a client under test and records every
// byte the client sends them. A stdio server is reached through a socket:
// the configuration the rig writes starts a relay (Relay, run by the lab
// binary) that joins the client's pipes to the socket, so the server runs
// inside the rig while the client sees an ordinary child process. An HTTP
// server listens on a loopback port. The rig can also play a server badly
// on purpose: listed but down, a request it never answers, an answer that
// breaks off before its response. A Hook says which requests: the calls of
// a tool, the reads of a resource, the gets of a prompt.
package rig

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/httpbound"
)

// Server is one server the rig plays under an alias of the configuration.
type Server struct {
	// Alias is the server's name in the configuration.
	Alias string
	// Stdio serves a stdio server over a byte stream until in ends.
	Stdio func(ctx context.Context, in io.Reader, out, log io.Writer) error
	// HTTP serves a Streamable HTTP server; Path is its endpoint ("/mcp"
	// when empty).
	HTTP http.Handler
	Path string
	// Down lists the server where nothing answers: an HTTP URL at a port
	// nobody listens on, a stdio command that does not exist.
	Down bool
	// Hold picks the requests the rig holds and never answers: the calls
	// of a tool, the reads of a resource (see Hook).
	Hold Hook
	// Cut picks the requests whose answer the rig breaks off: the
	// connection closes after the answer's headers, before any message.
	Cut Hook
	// Timeout is the server's timeoutMs in the configuration; 0 leaves
	// it out.
	Timeout time.Duration
}

// Transport is "stdio" or "http".
func (s Server) Transport() string {
	if s.HTTP != nil {
		return "http"
	}
	return "stdio"
}

// Options set up a rig.
type Options struct {
	// Dir is a private folder (mode 0700) for the configuration and the
	// sockets. Socket paths are short on some systems: keep it short.
	Dir string
	// Relay is the command that joins a client's pipes to a stdio
	// server's socket; the socket's path is added as its last argument.
	Relay []string
	// MaxLine bounds one recorded line or body, in bytes; 0 means 4 MiB.
	// A longer one is cut in the record (the server still gets it whole).
	MaxLine int
	// OnEvent, when set, sees each event as it is recorded, from the
	// goroutine that saw it.
	OnEvent func(event.Record)
	// Owner, when set, is the user the client runs as (a sandbox's): the
	// rig's sockets are given to it, mode 0700, so that no other user
	// but root reaches them. Nil keeps them the grader's own, mode 0700.
	Owner *Owner
	// ReadTimeout bounds the time an HTTP request's headers, and then its
	// body, may take to arrive; 0 means DefaultReadTimeout.
	ReadTimeout time.Duration
}

// Owner is a user and group by number.
type Owner struct{ UID, GID int }

// own gives path to the owner, if any, with mode perm.
func (o *Owner) own(path string, perm os.FileMode) error {
	if o != nil {
		if err := os.Lchown(path, o.UID, o.GID); err != nil {
			return fmt.Errorf("giving %s to uid %d: %w", path, o.UID, err)
		}
	}
	if err := os.Chmod(path, perm); err != nil {
		return fmt.Errorf("setting the mode of %s: %w", path, err)
	}
	return nil
}

// The rig keeps what it sees as event.Record, one of the lab's one set
// of kinds each: Start, Send, Answer (a stdio server's line, and one
// message of an HTTP answer: a JSON body, or one event's data), Close (the
// client closed a stdio server's stdin), Exit (a stdio server's connection
// ended, or an HTTP exchange), Post (an HTTP request: Header and Text, the
// body), Status (an HTTP answer's Status and content type), Held (the rig
// holds this request for good), Cut (the rig broke this answer off),
// Refused (an HTTP request the rig answered itself, with Status, because
// its body broke a bound) and NotKept (closes the events of a server whose
// record was full: Text says how many events and bytes were counted, not
// kept). Server is the alias, Conn numbers the server's connections from
// 1 (a stdio server's starts, an HTTP server's requests), and At is the
// time since the rig started. A transcript shows them in its own words
// (see event.Record.TranscriptText).

// Rig is a set of servers being played.
type Rig struct {
	start   time.Time
	ctx     context.Context
	cancel  context.CancelFunc
	maxLine int
	config  []byte
	onEvent func(event.Record)

	readTimeout time.Duration
	bodies      *httpbound.Bodies // the long request bodies held at once

	mu         sync.Mutex
	events     []event.Record
	kept       int               // bytes of text kept in events
	data       int               // message events kept (send, reply, post, answer)
	structural int               // other events kept
	tallies    map[string]*tally // what was kept and not, per alias
	conns      map[string]int    // connections made so far, per alias
	open       int               // stdio connections not yet gone
	changed    chan struct{}     // closed and replaced when open changes

	bridges  []BridgePair
	wg       sync.WaitGroup
	handlers sync.WaitGroup // HTTP exchanges in progress
	closed   bool
	closers  []io.Closer
	sockets  map[net.Conn]bool
	shutdown []func()
}

// Start starts every server and writes the configuration that names them.
func Start(ctx context.Context, servers []Server, opts Options) (*Rig, error) {
	if opts.Dir == "" {
		return nil, errors.New("the rig needs a folder of its own")
	}
	if st, err := os.Lstat(opts.Dir); err != nil || !st.IsDir() || !privateMode(st.Mode()) {
		if err == nil {
			err = fmt.Errorf("it is %s, want a folder of mode 0700 (not a link)", st.Mode())
		}
		return nil, fmt.Errorf("the rig's folder %s: %w", opts.Dir, err)
	}
	r := &Rig{start: time.Now(), maxLine: opts.MaxLine, onEvent: opts.OnEvent, conns: map[string]int{}, changed: make(chan struct{}), sockets: map[net.Conn]bool{},
		readTimeout: opts.ReadTimeout, tallies: map[string]*tally{}}
	if r.maxLine <= 0 {
		r.maxLine = DefaultMaxLine
	}
	if r.readTimeout <= 0 {
		r.readTimeout = DefaultReadTimeout
	}
	r.bodies = httpbound.NewBodies(bodyBound(r.readTimeout), nil)
	r.ctx, r.cancel = context.WithCancel(ctx)
	var cfg bytes.Buffer
	cfg.WriteString("{\"servers\": {")
	seen := map[string]bool{}
	for i, s := range servers {
		if seen[s.Alias] {
			r.Close()
			return nil, fmt.Errorf("the alias %q is given twice", s.Alias)
		}
		seen[s.Alias] = true
		entry, err := r.startServer(i, s, opts)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("starting server %s: %w", s.Alias, err)
		}
		if s.Timeout > 0 {
			entry["timeoutMs"] = s.Timeout.Milliseconds()
		}
		if i > 0 {
			cfg.WriteString(",")
		}
		name, _ := json.Marshal(s.Alias)
		fmt.Fprintf(&cfg, "\n  %s: %s", name, encodeEntry(entry))
	}
	cfg.WriteString("\n}}\n")
	r.config = cfg.Bytes()
	return r, nil
}

// encodeEntry writes a configuration entry with its members in a fixed
// order: command, args, url, timeoutMs.
func encodeEntry(e map[string]any) string {
	var parts []string
	for _, k := range []string{"command", "args", "url", "timeoutMs"} {
		if v, ok := e[k]; ok {
			kb, _ := json.Marshal(k)
			vb, _ := json.Marshal(v)
			parts = append(parts, string(kb)+": "+string(vb))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (r *Rig) startServer(i int, s Server, opts Options) (map[string]any, error) {
	switch {
	case s.HTTP != nil:
		p := s.Path
		if p == "" {
			p = "/mcp"
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		url := "http://" + ln.Addr().String() + p
		if s.Down {
			ln.Close() // a port that was free a moment ago, now with nobody on it
			return map[string]any{"url": url}, nil
		}
		srv := r.httpServer(r.httpHandler(s))
		// The same server on a socket, for a client with a network of
		// its own: a bridge in its network forwards the port here.
		sock := filepath.Join(opts.Dir, fmt.Sprintf("h%d.sock", i))
		uln, err := net.Listen("unix", sock)
		if err != nil {
			ln.Close()
			return nil, err
		}
		if err := opts.Owner.own(sock, 0o700); err != nil {
			ln.Close()
			uln.Close()
			return nil, err
		}
		r.bridges = append(r.bridges, BridgePair{Addr: ln.Addr().String(), Socket: sock})
		r.closers = append(r.closers, ln, uln)
		r.shutdown = append(r.shutdown, func() { srv.Close() })
		// The port and the socket share one bound on connections.
		conns := httpbound.NewConns(MaxHTTPConns)
		r.wg.Add(2)
		go func() { defer r.wg.Done(); srv.Serve(conns.Listener(ln, r.ctx.Done())) }()
		go func() { defer r.wg.Done(); srv.Serve(conns.Listener(uln, r.ctx.Done())) }()
		return map[string]any{"url": url}, nil
	case s.Stdio != nil:
		if len(opts.Relay) == 0 {
			return nil, errors.New("no relay command to reach a stdio server")
		}
		sock := filepath.Join(opts.Dir, fmt.Sprintf("s%d.sock", i))
		if s.Down {
			missing := filepath.Join(opts.Dir, fmt.Sprintf("no-server-%d", i))
			return map[string]any{"command": missing, "args": []string{}}, nil
		}
		ln, err := net.Listen("unix", sock)
		if err != nil {
			return nil, err
		}
		r.closers = append(r.closers, ln)
		// The client may run as another user (a sandbox's): the socket
		// is its, and no one else's.
		if err := opts.Owner.own(sock, 0o700); err != nil {
			return nil, err
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.acceptStdio(s, httpbound.NewConns(MaxStdioConns).Listener(ln, r.ctx.Done()))
		}()
		args := append(append([]string{}, opts.Relay[1:]...), sock)
		return map[string]any{"command": opts.Relay[0], "args": args}, nil
	}
	return nil, errors.New("the server has neither a stdio nor an HTTP side")
}

// BridgePair is a loopback address of an HTTP server the rig plays and
// the socket where the same server listens.
type BridgePair struct {
	Addr   string // host:port, as the configuration's URL names it
	Socket string
}

// Bridges lists, for each HTTP server that is up, its address and its
// socket: a client with a network of its own (a sandbox's) reaches the
// server through a bridge (see Bridge) listening at the address there.
func (r *Rig) Bridges() []BridgePair { return append([]BridgePair(nil), r.bridges...) }

// Config is the configuration file's content: every server, in order.
func (r *Rig) Config() []byte { return append([]byte(nil), r.config...) }

// Events returns what the rig saw so far, in order; for each server whose
// record was full, a last event (event.NotKept) says how much was counted
// and not kept.
func (r *Rig) Events() []event.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]event.Record(nil), r.events...)
	for _, e := range r.events {
		if t := r.tallies[e.Server]; t != nil && t.lostEvents > 0 && !t.summed {
			t.summed = true
			out = append(out, event.Record{At: time.Since(r.start), Server: e.Server, Kind: event.NotKept, Played: true, Text: t.lost()})
		}
	}
	for _, t := range r.tallies {
		t.summed = false
	}
	return out
}

// Since is the time since the rig started, on the clock of its events.
func (r *Rig) Since() time.Duration { return time.Since(r.start) }

// OpenStdio is how many stdio connections have not ended, and a channel
// closed when that number next changes.
func (r *Rig) OpenStdio() (int, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.open, r.changed
}

// Close stops every server and ends every connection, then waits for the
// rig's goroutines.
func (r *Rig) Close() error {
	r.cancel()
	r.mu.Lock()
	r.closed = true
	for _, c := range r.closers {
		c.Close()
	}
	for c := range r.sockets {
		c.Close()
	}
	shut := r.shutdown
	r.mu.Unlock()
	for _, f := range shut {
		f()
	}
	r.wg.Wait()
	r.handlers.Wait()
	return nil
}

func (r *Rig) record(e event.Record) {
	e.Played = true
	kept, note := r.keep(&e)
	if r.onEvent == nil {
		return
	}
	if note != nil {
		r.onEvent(*note)
	}
	if kept {
		r.onEvent(e)
	}
}

// tally is what a server's record kept, and what it counted but did not
// keep.
type tally struct {
	bytes, data, structural int // kept
	lostEvents, lostBytes   int
	summed                  bool // Events added its summary this time
}

func (t *tally) lost() string {
	return fmt.Sprintf("%d more events (%d bytes) not kept: the record of a server keeps at most %d messages and %d MiB, and of a rig %d messages and %d MiB",
		t.lostEvents, t.lostBytes, MaxEventsPerServer, MaxKeptPerServer>>20, MaxEvents, MaxKept>>20)
}

// structural reports whether an event says how a connection went rather
// than what it carried: such events have room of their own in the record
// (as many again), so that a flood of messages cannot hide that a server
// ended.
func structural(k event.Kind) bool {
	switch k {
	case event.Send, event.Answer, event.Post:
		return false
	}
	return true
}

// keep stamps and stores an event, and reports whether it was kept: an
// event past the record's caps is counted, not kept. The first one a
// server loses comes back as a note to show.
func (r *Rig) keep(e *event.Record) (bool, *event.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.At = time.Since(r.start)
	if len(e.Text) > r.maxLine {
		e.Text = e.Text[:r.maxLine] + fmt.Sprintf("... [%d more bytes not kept]", len(e.Text)-r.maxLine)
	}
	size := len(e.Text)
	for k, vs := range e.Header {
		for _, v := range vs {
			size += len(k) + len(v)
		}
	}
	t := r.tallies[e.Server]
	if t == nil {
		t = &tally{}
		r.tallies[e.Server] = t
	}
	var full bool
	if structural(e.Kind) {
		full = t.structural >= MaxEventsPerServer || r.structural >= MaxEvents || len(e.Text) > 4096
	} else {
		full = t.data >= MaxEventsPerServer || r.data >= MaxEvents || t.bytes+size > MaxKeptPerServer || r.kept+size > MaxKept
	}
	if full {
		t.lostEvents++
		t.lostBytes += size
		if t.lostEvents == 1 {
			return false, &event.Record{At: e.At, Server: e.Server, Conn: e.Conn, Kind: event.NotKept, Played: true, Text: "the record of this server is full: later events are counted, not kept"}
		}
		return false, nil
	}
	if structural(e.Kind) {
		t.structural++
		r.structural++
	} else {
		t.data++
		r.data++
	}
	t.bytes += size
	r.kept += size
	r.events = append(r.events, *e)
	return true, nil
}

func (r *Rig) nextConn(alias string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conns[alias]++
	return r.conns[alias]
}

func (r *Rig) addOpen(d int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open += d
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *Rig) acceptStdio(s Server, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		if r.ctx.Err() != nil {
			r.mu.Unlock()
			c.Close()
			return
		}
		r.sockets[c] = true
		r.open++
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.serveStdio(s, c)
		}()
	}
}

// serveStdio plays one start of a stdio server: what the client sends is
// recorded line by line and passed on (a held call is not), and what the
// server writes is recorded and sent back.
func (r *Rig) serveStdio(s Server, c net.Conn) {
	n := r.nextConn(s.Alias)
	r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Start})
	defer func() {
		c.Close()
		r.mu.Lock()
		delete(r.sockets, c)
		r.mu.Unlock()
		r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Exit})
		r.addOpen(-1)
	}()
	in, feed := io.Pipe()
	relayGone := make(chan struct{})
	go func() {
		defer close(relayGone)
		lines := &lineTap{w: feed, emit: func(line string) {
			r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Send, Text: line})
		}, hold: func(line []byte) bool {
			if s.Hold.Picks(line) {
				r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Held, Text: holdText(s.Hold)})
				return true
			}
			return false
		}, max: r.maxLine}
		err := readFrames(c, lines)
		if errors.Is(err, errStdinEnded) {
			r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Close})
			lines.flush()
			feed.Close()
			// The relay lives on until the client ends it: wait for
			// that, reading (and dropping) anything more.
			io.Copy(io.Discard, c)
			return
		}
		lines.flush()
		feed.Close()
	}()
	out := &lineTap{w: c, emit: func(line string) {
		r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Answer, Text: line})
	}, max: r.maxLine}
	s.Stdio(r.ctx, in, out, io.Discard)
	in.CloseWithError(io.ErrClosedPipe)
	select {
	case <-relayGone:
	case <-r.ctx.Done():
		c.Close()
		<-relayGone
	}
}

// errStdinEnded is the relay's word that the client closed its stdin.
var errStdinEnded = errors.New("the client closed the server's stdin")

// readFrames reads the relay's frames and writes their bytes to w, until
// the empty frame (errStdinEnded) or the connection's end.
func readFrames(c io.Reader, w io.Writer) error {
	var head [4]byte
	buf := make([]byte, 64<<10)
	for {
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return err
		}
		n := int(binary.BigEndian.Uint32(head[:]))
		if n == 0 {
			return errStdinEnded
		}
		if n > len(buf) {
			return fmt.Errorf("a frame of %d bytes is longer than a relay sends", n)
		}
		if _, err := io.ReadFull(c, buf[:n]); err != nil {
			return err
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
	}
}

// lineTap passes writes on and reports each complete line written. A
// line that hold claims is reported but not passed on; a line longer than
// max is reported cut (it is passed on whole).
type lineTap struct {
	w    io.Writer
	emit func(string)
	hold func([]byte) bool
	max  int
	buf  []byte
}

func (t *lineTap) Write(p []byte) (int, error) {
	if t.hold == nil {
		t.scan(p)
		return t.w.Write(p)
	}
	// Held lines must not reach w: pass on line by line.
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		line := t.buf[:i+1]
		t.emit(string(line[:i]))
		if !t.hold(line) {
			if _, err := t.w.Write(line); err != nil {
				return 0, err
			}
		}
		t.buf = t.buf[i+1:]
	}
	if t.max > 0 && len(t.buf) > t.max {
		t.emit(string(t.buf[:t.max]) + " [cut: the line goes on]")
		if _, err := t.w.Write(t.buf); err != nil {
			return 0, err
		}
		t.buf = nil
	}
	return len(p), nil
}

// scan reports the complete lines in p, keeping a partial one for later.
func (t *lineTap) scan(p []byte) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.emit(string(t.buf[:i]))
		t.buf = t.buf[i+1:]
	}
	if t.max > 0 && len(t.buf) > t.max {
		t.emit(string(t.buf[:t.max]) + " [cut: the line goes on]")
		t.buf = nil
	}
}

// flush passes on and reports what is left after the last newline.
func (t *lineTap) flush() {
	if len(t.buf) == 0 {
		return
	}
	t.emit(string(t.buf))
	if t.hold != nil && !t.hold(t.buf) {
		t.w.Write(t.buf)
	}
	t.buf = nil
}

func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
