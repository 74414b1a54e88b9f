package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/wire"
)

// DefaultMaxInFlight is how many tool calls ServeStdio runs at once unless
// the Server says otherwise.
const DefaultMaxInFlight = 64

// ServeStdio serves one connection over a stdio pair: it reads one message a
// line from in and writes each answer as one line to out, until in ends.
// Then it waits for the calls still running, writes their answers and
// returns nil: a stdio server exits when its input closes. When ctx is done
// it stops reading, cancels the calls in flight and returns ctx.Err().
//
// Everything but a tool call (or a registered method) is answered in the
// order the lines arrive, so an initialize changes the rules for exactly the
// lines after it. Tool calls run at the same time, up to MaxInFlight; a
// notifications/cancelled naming one cancels it, and its answer is never
// sent. Answers to a pipelined stream are written in batches, and always
// before the server waits for more input.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn := s.NewConn()
	st := &stdio{
		srv:      s,
		conn:     conn,
		out:      bufio.NewWriterSize(out, 64<<10),
		slots:    make(chan struct{}, max(s.MaxInFlight, 0)),
		inflight: make(map[string]*flight),
	}
	if s.MaxInFlight == 0 {
		st.slots = make(chan struct{}, DefaultMaxInFlight)
	}
	src := newCtxReader(ctx, in)
	defer src.stop()
	framer := wire.NewFramer(src, wire.MaxLine(s.MaxLine))
	mode := "tool calls run one at a time"
	if cap(st.slots) > 1 {
		mode = fmt.Sprintf("up to %d tool calls run at once", cap(st.slots))
	}
	legacy := "initialize switches to legacy rules"
	if len(s.LegacyVersions) == 0 {
		legacy = "modern only"
	}
	s.logf("ready, listening on stdin (MCP %s; %s; %s)", s.versions()[0], legacy, mode)

	var stopErr error
	for {
		line, err := framer.Next()
		if err != nil {
			if errors.Is(err, wire.ErrLineTooLong) {
				s.logf("dropped a line: %v", err)
				st.write(conn.fail(nil, nil, wire.Errorf(wire.CodeParseError, "Parse error: %v", err)).Line, false)
				continue
			}
			if errors.Is(err, io.EOF) {
				s.logf("stdin closed; finishing %d call(s) in flight, then exiting", st.running())
			} else {
				stopErr = err
				if ctx.Err() != nil {
					stopErr = ctx.Err()
				}
				s.logf("stopped reading: %v", stopErr)
			}
			break
		}
		st.handle(ctx, line)
		if !framer.HasLine() {
			st.flush()
		}
		if werr := st.writeErr(); werr != nil {
			stopErr = werr
			s.logf("stopped: the client no longer reads: %v", werr)
			break
		}
	}
	if stopErr != nil {
		cancel()
	}
	st.wg.Wait()
	st.flush()
	if stopErr != nil {
		return stopErr
	}
	return st.writeErr()
}

// stdio is the state of one ServeStdio call.
type stdio struct {
	srv   *Server
	conn  *Conn
	slots chan struct{}
	wg    sync.WaitGroup

	mu       sync.Mutex
	out      *bufio.Writer
	werr     error
	inflight map[string]*flight // calls running, by their id's loose key
}

// flight is one tool call running in its own goroutine.
type flight struct {
	cancel    context.CancelFunc
	cancelled bool
}

func (st *stdio) running() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.inflight)
}

func (st *stdio) handle(ctx context.Context, line []byte) {
	r, call := st.conn.begin(line)
	if call == nil {
		if r.Message != nil && r.Message.Kind == wire.KindNotification && r.Message.Method == mcp.MethodCancelled {
			st.cancelCall(r.Message.Params)
		}
		st.write(r.Line, false)
		return
	}
	if cap(st.slots) <= 1 {
		st.write(call.run(ctx).Line, false)
		return
	}
	select {
	case st.slots <- struct{}{}:
	case <-ctx.Done():
		st.write(st.conn.fail(call.msg, call.msg.ID, wire.Errorf(wire.CodeInternalError, "Internal error: the server is shutting down")).Line, false)
		return
	}
	callCtx, cancel := context.WithCancel(ctx)
	f := &flight{cancel: cancel}
	key := wire.LooseIDKey(call.msg.ID)
	st.mu.Lock()
	st.inflight[key] = f
	st.mu.Unlock()
	st.wg.Add(1)
	go func() {
		defer func() { <-st.slots; st.wg.Done() }()
		r := call.run(callCtx)
		cancel()
		st.mu.Lock()
		if st.inflight[key] == f {
			delete(st.inflight, key)
		}
		dropped := f.cancelled
		st.mu.Unlock()
		if dropped {
			st.srv.logf("call id=%s was cancelled; its answer is not sent", call.msg.ID)
			return
		}
		st.write(r.Line, true)
	}()
}

// cancelCall handles notifications/cancelled: the call it names stops, and
// its answer is never sent. A notification naming no running call is
// ignored, as the protocol asks.
func (st *stdio) cancelCall(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || !wire.UsableID(p.RequestID) {
		st.srv.logf("ignored a notifications/cancelled without a usable requestId")
		return
	}
	st.mu.Lock()
	f := st.inflight[wire.LooseIDKey(p.RequestID)]
	if f != nil {
		f.cancelled = true
	}
	st.mu.Unlock()
	if f != nil {
		f.cancel()
	}
}

// write adds a line to the output. A call's answer is flushed at once;
// the loop's answers wait for the batch to end.
func (st *stdio) write(line []byte, flush bool) {
	if line == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.werr != nil {
		return
	}
	if _, err := st.out.Write(line); err != nil {
		st.werr = fmt.Errorf("writing an answer: %w", err)
		return
	}
	if flush {
		if err := st.out.Flush(); err != nil {
			st.werr = fmt.Errorf("writing an answer: %w", err)
		}
	}
}

func (st *stdio) flush() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.werr == nil {
		if err := st.out.Flush(); err != nil {
			st.werr = fmt.Errorf("writing an answer: %w", err)
		}
	}
}

func (st *stdio) writeErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.werr
}

// ctxReader reads from a stream in a goroutine of its own, so that a read
// that blocks (on a terminal or a pipe) never keeps ServeStdio from
// stopping when its context is done. Chunks are handed over one at a time
// and the buffer is reused, so memory stays at one chunk.
type ctxReader struct {
	ctx    context.Context
	chunks chan chunk
	next   chan struct{}
	quit   chan struct{}
	once   sync.Once
	cur    []byte
	owed   bool // the reader goroutine waits for a signal on next
	err    error
}

type chunk struct {
	b   []byte
	err error
}

func newCtxReader(ctx context.Context, in io.Reader) *ctxReader {
	r := &ctxReader{ctx: ctx, chunks: make(chan chunk), next: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				select {
				case r.chunks <- chunk{b: buf[:n]}:
				case <-r.quit:
					return
				}
				select {
				case <-r.next:
				case <-r.quit:
					return
				}
			}
			if err != nil {
				select {
				case r.chunks <- chunk{err: err}:
				case <-r.quit:
				}
				return
			}
		}
	}()
	return r
}

// Read hands over what the goroutine read, or stops with the context.
func (r *ctxReader) Read(p []byte) (int, error) {
	if len(r.cur) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.owed {
			r.owed = false
			select {
			case r.next <- struct{}{}:
			case <-r.ctx.Done():
				return 0, r.ctx.Err()
			}
		}
		select {
		case c := <-r.chunks:
			if c.err != nil {
				r.err = c.err
				return 0, c.err
			}
			r.cur, r.owed = c.b, true
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// stop lets the goroutine end once its read returns.
func (r *ctxReader) stop() { r.once.Do(func() { close(r.quit) }) }
