package schema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/wire"
)

// Sender says who wrote a message: the client (on the server's stdin), the
// server (on its stdout), or nobody known (a wire file).
type Sender string

// The senders a recorded session knows.
const (
	FromClient  Sender = "client"
	FromServer  Sender = "server"
	FromUnknown Sender = ""
)

// Verdict is what checking one message found.
type Verdict struct {
	// Def is the schema definition the message was checked against, such as
	// "DiscoverRequest", or "JSON-RPC 2.0 (legacy)" for a message of the
	// legacy era, which the 2026-07-28 schema does not describe.
	Def string
	// Err says why the message fails; nil when it passes.
	Err error
}

// Session checks the messages of one connection in order. It remembers
// which method each open request asked for, so a result is checked against
// that method's result, and whether an initialize request switched the
// connection to the legacy era. It is not safe for concurrent use.
type Session struct {
	v        *Validator
	methods  map[string]string // open request id (loose key) -> method
	legacy   map[string]bool   // open request id -> served under legacy rules
	inLegacy bool
}

// NewSession starts checking one connection.
func (v *Validator) NewSession() *Session {
	return &Session{v: v, methods: map[string]string{}, legacy: map[string]bool{}}
}

// legacyDef names the check that legacy-era messages get.
const legacyDef = "JSON-RPC 2.0 (legacy era: the 2026-07-28 schema does not describe it)"

// Check checks one message, as sent by from.
func (s *Session) Check(from Sender, msg []byte) Verdict {
	msg = bytes.TrimSpace(msg)
	if !json.Valid(msg) {
		return Verdict{Def: "JSONRPCMessage", Err: fmt.Errorf("it is not JSON, so it is not a message at all")}
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(msg, &obj) != nil || obj == nil {
		return Verdict{Def: "JSONRPCMessage", Err: fmt.Errorf("a message is a JSON object, and this is not one")}
	}
	rawMethod, hasMethod := obj["method"]
	rawID, hasID := obj["id"]
	if hasMethod {
		var method string
		_ = json.Unmarshal(rawMethod, &method)
		if hasID {
			return s.request(from, msg, method, rawID, obj["params"])
		}
		return s.notification(msg, method)
	}
	return s.response(msg, rawID, hasID, obj)
}

func (s *Session) request(from Sender, msg []byte, method string, id, params json.RawMessage) Verdict {
	if from == FromServer {
		return Verdict{Def: "JSONRPCRequest", Err: fmt.Errorf("a server must not send requests on stdio in 2026-07-28; it only answers")}
	}
	key := wire.LooseIDKey(id)
	if method == "initialize" {
		s.inLegacy = true
		s.methods[key], s.legacy[key] = method, true
		return s.legacyEnvelope(msg)
	}
	if s.inLegacy && !mcp.HasModernMeta(params) {
		s.methods[key], s.legacy[key] = method, true
		return s.legacyEnvelope(msg)
	}
	s.methods[key], s.legacy[key] = method, false
	if def := s.v.requestDef[method]; def != "" {
		return s.check(def, msg)
	}
	if vd := s.check("JSONRPCRequest", msg); vd.Err != nil {
		return vd
	}
	p := params
	if len(p) == 0 {
		p = json.RawMessage(`{}`)
	}
	if err := s.v.CheckDef("RequestParams", p); err != nil {
		return Verdict{Def: "JSONRPCRequest + RequestParams", Err: fmt.Errorf("the method %q is not in the schema, and its params lack what every request needs: %w", method, err)}
	}
	return Verdict{Def: "JSONRPCRequest + RequestParams"}
}

func (s *Session) notification(msg []byte, method string) Verdict {
	if def := s.v.notifyDef[method]; def != "" {
		return s.check(def, msg)
	}
	if s.inLegacy {
		return s.legacyEnvelope(msg)
	}
	return s.check("JSONRPCNotification", msg)
}

func (s *Session) response(msg []byte, id json.RawMessage, hasID bool, obj map[string]json.RawMessage) Verdict {
	method, legacy := "", false
	if hasID {
		key := wire.LooseIDKey(id)
		method, legacy = s.methods[key], s.legacy[key]
		delete(s.methods, key)
		delete(s.legacy, key)
	}
	if rawErr, ok := obj["error"]; ok {
		vd := s.check("JSONRPCErrorResponse", msg)
		if vd.Err != nil {
			return vd
		}
		var e struct {
			Code int `json:"code"`
		}
		if json.Unmarshal(rawErr, &e) == nil {
			if def := s.v.errorResponseDef[e.Code]; def != "" {
				return s.check(def, msg)
			}
			if def := s.v.errorDef[e.Code]; def != "" {
				vd := s.check(def, rawErr)
				vd.Def = "JSONRPCErrorResponse + " + def
				return vd
			}
		}
		return vd
	}
	if legacy {
		return s.legacyEnvelope(msg)
	}
	if def := s.v.responseByReq[s.v.requestDef[method]]; def != "" {
		return s.check(def, msg)
	}
	return s.check("JSONRPCResultResponse", msg)
}

// legacyEnvelope checks a legacy-era message for the JSON-RPC 2.0 shape
// alone.
func (s *Session) legacyEnvelope(msg []byte) Verdict {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(msg, &obj)
	if _, ok := obj["method"]; ok {
		if _, problem := wire.ParseRequest(msg); problem != nil {
			return Verdict{Def: legacyDef, Err: fmt.Errorf("%s", problem.Err.Message)}
		}
		return Verdict{Def: legacyDef}
	}
	if _, why := wire.ParseResponse(msg); why != "" {
		return Verdict{Def: legacyDef, Err: fmt.Errorf("not a JSON-RPC response: %s", why)}
	}
	return Verdict{Def: legacyDef}
}

func (s *Session) check(def string, value []byte) Verdict {
	return Verdict{Def: def, Err: s.v.CheckDef(def, value)}
}
