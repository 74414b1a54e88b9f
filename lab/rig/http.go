package rig

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// RequestLineHeader is the header under which a post event keeps the
// request's method and path ("POST /mcp"); no client sends it.
const RequestLineHeader = "X-Rig-Request"

// httpHandler records each request and what the server answers, and plays
// the server's faults: a held call is never answered, a cut one breaks off
// before its response.
func (r *Rig) httpHandler(s Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return
		}
		r.handlers.Add(1)
		r.mu.Unlock()
		defer r.handlers.Done()
		n := r.nextConn(s.Alias)
		h := req.Header.Clone()
		h.Set(RequestLineHeader, req.Method+" "+req.URL.Path)
		body, release, err := r.readBody(w, req)
		if err != nil {
			r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Post, Header: h, Text: string(body)})
			r.refuse(w, s.Alias, n, err)
			return
		}
		defer release()
		r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Post, Header: h, Text: string(body)})
		req.Body = io.NopCloser(bytes.NewReader(body))
		if s.Hold.Picks(body) {
			r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Held, Text: holdText(s.Hold)})
			select {
			case <-req.Context().Done():
			case <-r.ctx.Done():
			}
			r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Exit})
			// Never an answer, not even an empty one as the rig closes.
			panic(http.ErrAbortHandler)
		}
		tw := &tapWriter{w: w, rig: r, alias: s.Alias, conn: n, cut: s.Cut.Picks(body)}
		defer r.record(event.Record{Server: s.Alias, Conn: n, Kind: event.Exit})
		defer tw.finish()
		s.HTTP.ServeHTTP(tw, req)
		if tw.broken {
			// From the handler's goroutine: the connection closes with
			// no more bytes.
			panic(http.ErrAbortHandler)
		}
	})
}

// tapWriter records an HTTP answer message by message. An event stream is
// passed on one whole event at a time; a cut answer stops after its
// headers, before its first message.
type tapWriter struct {
	w        http.ResponseWriter
	rig      *Rig
	alias    string
	conn     int
	cut      bool
	status   int
	stream   bool
	pending  []byte // an event stream's bytes not yet passed on
	body     []byte // a JSON body, recorded at the end
	finished bool
	broken   bool // cut: nothing more goes out
}

var errCut = errors.New("the rig cut this answer off")

func (t *tapWriter) Header() http.Header { return t.w.Header() }

func (t *tapWriter) WriteHeader(code int) {
	if t.status != 0 || t.broken {
		return
	}
	t.status = code
	ct := t.w.Header().Get("Content-Type")
	t.stream = strings.HasPrefix(ct, "text/event-stream")
	t.rig.record(event.Record{Server: t.alias, Conn: t.conn, Kind: event.Status, Status: code, Text: ct})
	t.w.WriteHeader(code)
	if t.cut && !t.stream {
		t.breakOff("the rig broke the connection before the answer's body")
	}
}

func (t *tapWriter) Write(p []byte) (int, error) {
	if t.status == 0 {
		t.WriteHeader(http.StatusOK)
	}
	if t.broken {
		return 0, errCut
	}
	if !t.stream {
		if len(t.body) < t.rig.maxLine {
			t.body = append(t.body, p...)
		}
		return t.w.Write(p)
	}
	t.pending = append(t.pending, p...)
	for {
		i := bytes.Index(t.pending, []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		ev := t.pending[:i+2]
		data := eventData(ev)
		if t.cut {
			t.breakOff("the rig broke the stream off before its first message")
			return 0, errCut
		}
		t.rig.record(event.Record{Server: t.alias, Conn: t.conn, Kind: event.Answer, Text: data})
		if _, err := t.w.Write(ev); err != nil {
			return 0, err
		}
		t.pending = t.pending[i+2:]
	}
}

// Flush passes a flush on, so a stream reaches the client as it is made.
func (t *tapWriter) Flush() {
	if f, ok := t.w.(http.Flusher); ok {
		f.Flush()
	}
}

// breakOff ends the exchange at once: the server closes the connection
// with no more bytes, which the client sees as a stream that broke.
func (t *tapWriter) breakOff(why string) {
	t.Flush()
	t.rig.record(event.Record{Server: t.alias, Conn: t.conn, Kind: event.Cut, Text: why})
	t.finished = true
	t.broken = true
}

func (t *tapWriter) finish() {
	if t.finished {
		return
	}
	t.finished = true
	if !t.stream && len(t.body) > 0 {
		t.rig.record(event.Record{Server: t.alias, Conn: t.conn, Kind: event.Answer, Text: strings.TrimSpace(string(t.body))})
	}
}

// eventData joins the data lines of one event.
func eventData(ev []byte) string {
	var parts []string
	for _, line := range strings.Split(string(ev), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			parts = append(parts, strings.TrimPrefix(v, " "))
		}
	}
	return strings.Join(parts, "\n")
}

// refuse answers a request whose body the rig would not or could not read
// with the status that says why, and a JSON-RPC error that says it in
// words; the connection closes after it.
func (r *Rig) refuse(w http.ResponseWriter, alias string, n int, err error) {
	status, why := http.StatusBadRequest, err.Error()
	var be *bodyError
	if errors.As(err, &be) {
		status = be.status
	}
	r.record(event.Record{Server: alias, Conn: n, Kind: event.Refused, Status: status, Text: why})
	msg, _ := json.Marshal(why)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":`+string(msg)+"}}\n")
	r.record(event.Record{Server: alias, Conn: n, Kind: event.Exit})
}
