package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mcplab/mcplab/lab/wire"
)

type notifierKey struct{}

// eventStream writes one request's event stream.
type eventStream struct {
	w       http.ResponseWriter
	flusher http.Flusher
	meta    requestMeta
	mu      sync.Mutex
	started bool
	done    bool
	after   [][]byte
}

// requestMeta holds the optional _meta keys that ask for notifications.
type requestMeta struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	LogLevel      string          `json:"io.modelcontextprotocol/logLevel"`
}

func readMeta(params json.RawMessage) requestMeta {
	var p struct {
		Meta requestMeta `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	return p.Meta
}

// start sends the stream's headers. s.mu must be held.
func (s *eventStream) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
}

// event writes one message as one event; flush sends it at once rather
// than with whatever follows. s.mu must be held.
func (s *eventStream) event(msg []byte, flush bool) {
	var b bytes.Buffer
	b.WriteString("event: message\ndata: ")
	b.Write(msg)
	b.WriteString("\n\n")
	s.w.Write(b.Bytes())
	if flush && s.flusher != nil {
		s.flusher.Flush()
	}
}

func notification(method string, params any) []byte {
	p, err := wire.MarshalCompact(params)
	if err != nil {
		return nil
	}
	m, _ := wire.MarshalCompact(struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}{wire.Version, method, p})
	return m
}

func fromContext(ctx context.Context) *eventStream {
	s, _ := ctx.Value(notifierKey{}).(*eventStream)
	return s
}

// Progress sends a notifications/progress for the request being answered,
// at once, when the request asked for progress (a progressToken in its
// _meta) and is answered with an event stream. It reports whether it was
// sent. progress must grow from one call to the next.
func Progress(ctx context.Context, progress, total float64, message string) bool {
	s := fromContext(ctx)
	if s == nil || len(s.meta.ProgressToken) == 0 {
		return false
	}
	n := notification("notifications/progress", struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      float64         `json:"progress"`
		Total         float64         `json:"total,omitempty"`
		Message       string          `json:"message,omitempty"`
	}{s.meta.ProgressToken, progress, total, message})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || n == nil {
		return false
	}
	s.start()
	s.event(n, true)
	return true
}

// The log levels, least severe first.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelRank(l string) int {
	for i, v := range logLevels {
		if v == l {
			return i
		}
	}
	return -1
}

// LogAfter leaves a notifications/message to be sent right after the
// response, on its event stream. Nothing is sent unless the request set a
// log level in its _meta and level is at least as severe: without one the
// specification forbids log notifications. It reports whether the message
// will be sent.
func LogAfter(ctx context.Context, level, logger string, data any) bool {
	s := fromContext(ctx)
	if s == nil || s.meta.LogLevel == "" {
		return false
	}
	want, got := levelRank(s.meta.LogLevel), levelRank(level)
	if want < 0 || got < want {
		return false
	}
	n := notification("notifications/message", struct {
		Level  string `json:"level"`
		Logger string `json:"logger,omitempty"`
		Data   any    `json:"data"`
	}{level, logger, data})
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || n == nil {
		return false
	}
	s.after = append(s.after, n)
	return true
}
