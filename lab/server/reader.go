package server

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/mcplab/mcplab/lab/wire"
)

// MaxWait is the longest wait, in milliseconds, that lesson 1's wait method
// accepts.
const MaxWait = 60000

// Reader is the handler of lesson 1, "Reading messages": ping answers {} at
// once, wait answers {"waited": N} after N milliseconds, and every other
// method is not found. Like the lesson's own server, it answers everything
// but a valid wait inline, in the order the lines come; only a wait runs on
// its own and answers when its time is up.
type Reader struct{}

// Inline reports whether req is answered inline: every request except a wait
// whose params are good, which is the one request that takes time.
func (Reader) Inline(req *wire.Message) bool {
	if req.Method != "wait" {
		return true
	}
	_, werr := waitParams(req.Params)
	return werr != nil
}

// Handle answers one request.
func (Reader) Handle(ctx context.Context, req *wire.Message) (any, error) {
	switch req.Method {
	case "ping":
		return struct{}{}, nil
	case "wait":
		ms, werr := waitParams(req.Params)
		if werr != nil {
			return nil, werr
		}
		t := time.NewTimer(time.Duration(ms.n) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
			return waited{Waited: json.RawMessage(ms.raw)}, nil
		case <-ctx.Done():
			return nil, wire.Errorf(wire.CodeInternalError, "Internal error: the server stopped before the wait of %s ms was over", ms.raw)
		}
	}
	return nil, wire.Errorf(wire.CodeMethodNotFound, "Method not found: %q (this server knows ping and wait)", req.Method)
}

type waited struct {
	Waited json.RawMessage `json:"waited"`
}

// millis is a checked wait length: its value, and the number as it was sent.
type millis struct {
	n   int64
	raw string
}

// waitParams checks wait's params: an object whose "ms" is a whole number
// from 0 to MaxWait.
func waitParams(params json.RawMessage) (millis, *wire.Error) {
	bad := func(why string, args ...any) (millis, *wire.Error) {
		return millis{}, wire.Errorf(wire.CodeInvalidParams, "Invalid params: "+why, args...)
	}
	if len(params) == 0 {
		return bad(`wait needs params like {"ms": 80}`)
	}
	var obj map[string]json.RawMessage
	if params[0] != '{' || json.Unmarshal(params, &obj) != nil {
		return bad(`wait's params must be an object like {"ms": 80}`)
	}
	raw, ok := obj["ms"]
	if !ok {
		return bad(`"ms" is missing; wait needs params like {"ms": 80}`)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '-' && wire.UsableID(raw) {
		return bad(`"ms" must not be negative, got %s`, raw)
	}
	if len(raw) == 0 || raw[0] == '"' || !wire.UsableID(raw) {
		return bad(`"ms" must be a whole number of milliseconds, got %s`, raw)
	}
	if len(raw) > 6 {
		return bad(`"ms" must be at most %d, got %s`, MaxWait, raw)
	}
	var n int64
	for _, c := range raw {
		n = n*10 + int64(c-'0')
	}
	if n > MaxWait {
		return bad(`"ms" must be at most %d, got %s`, MaxWait, raw)
	}
	return millis{n: n, raw: string(raw)}, nil
}
