package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Kind says what sort of JSON-RPC message a line holds.
type Kind int

// The kinds of message. A request has an id and wants one answer; a
// notification has no id and wants none; a response answers a request.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Null is the JSON literal null, the id of an answer to a line whose id could
// not be read.
var Null = json.RawMessage("null")

// Message is one request, notification or response, as read from a line.
// ID, Params and Result keep the exact bytes that were sent.
type Message struct {
	Kind   Kind
	ID     json.RawMessage // nil for a notification
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// Error is the error object of a response. It is also a Go error, so a
// handler can return one.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d): %s", CodeName(e.Code), e.Code, e.Message)
}

// Errorf builds an error object with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Problem is what ParseRequest finds wrong with a line that is not a usable
// message: the error to answer with, and the id to answer to.
type Problem struct {
	// Err is the error object to send back: -32700 or -32600.
	Err *Error
	// ID is the id to answer with: the line's id when it could be read as a
	// string or an integer, else null.
	ID json.RawMessage
}

// ParseRequest reads one line as a server must: it returns the request or
// notification it holds, or the Problem to answer with. It never panics,
// whatever the bytes.
//
// The rules: a line that is not valid UTF-8 or not JSON is a parse error
// (-32700, id null). JSON that is not a request object is an invalid request
// (-32600): not an object, "jsonrpc" not exactly "2.0", a method that is not
// a string, an id that is null, a fraction, a boolean, an object or an array,
// params that are neither an object nor an array. Its id is copied into the
// answer when it is a string or an integer, else the answer's id is null.
func ParseRequest(line []byte) (*Message, *Problem) {
	if !utf8.Valid(line) {
		return nil, &Problem{Err: Errorf(CodeParseError, "Parse error: the line is not valid UTF-8"), ID: Null}
	}
	if !json.Valid(line) {
		return nil, &Problem{Err: Errorf(CodeParseError, "Parse error: the line is not valid JSON"), ID: Null}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
		return nil, invalid(Null, "Invalid Request: a request must be a JSON object, not %s", describeJSON(line))
	}
	rawID, hasID := obj["id"]
	id := Null
	if hasID && UsableID(rawID) {
		id = Compact(rawID)
	}
	if v, ok := obj["jsonrpc"]; !ok {
		return nil, invalid(id, `Invalid Request: the "jsonrpc" member is missing; it must be "2.0"`)
	} else if !bytes.Equal(bytes.TrimSpace(v), []byte(`"2.0"`)) {
		return nil, invalid(id, `Invalid Request: "jsonrpc" must be exactly "2.0", not %s`, Compact(v))
	}
	rawMethod, ok := obj["method"]
	if !ok {
		return nil, invalid(id, `Invalid Request: the "method" member is missing`)
	}
	var method string
	if m := bytes.TrimSpace(rawMethod); len(m) == 0 || m[0] != '"' || json.Unmarshal(m, &method) != nil {
		return nil, invalid(id, `Invalid Request: "method" must be a string, not %s`, describeJSON(rawMethod))
	}
	if hasID && !UsableID(rawID) {
		return nil, invalid(Null, `Invalid Request: "id" must be a string or an integer, not %s`, describeJSON(rawID))
	}
	params, hasParams := obj["params"]
	if hasParams {
		p := bytes.TrimSpace(params)
		if len(p) == 0 || (p[0] != '{' && p[0] != '[') {
			return nil, invalid(id, `Invalid Request: "params" must be an object or an array, not %s`, describeJSON(params))
		}
		params = Compact(params)
	}
	m := &Message{Method: method, Params: params}
	if hasID {
		m.Kind, m.ID = KindRequest, id
	} else {
		m.Kind = KindNotification
	}
	return m, nil
}

func invalid(id json.RawMessage, format string, args ...any) *Problem {
	return &Problem{Err: Errorf(CodeInvalidRequest, format, args...), ID: id}
}

// UsableID reports whether raw is an id a request may carry: a JSON string or
// a JSON number written as an integer (no fraction, no exponent).
func UsableID(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return false
	}
	if b[0] == '"' {
		var s string
		return json.Unmarshal(b, &s) == nil
	}
	if b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Compact returns the JSON value without insignificant white space, or raw
// itself when it is not valid JSON.
func Compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// describeJSON names the type of a JSON value for an error message, with the
// value itself when it is short: `the number 5`, `an array`.
func describeJSON(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	short := string(b)
	if len(short) > 40 {
		short = ""
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		if short != "" {
			return "the string " + short
		}
		return "a string"
	case 't', 'f':
		return "the boolean " + string(b)
	case 'n':
		return "null"
	}
	if short != "" {
		return "the number " + short
	}
	return "a number"
}

// Response is a response as it goes on the wire. ID keeps the request's id
// byte for byte.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// NewResult builds the response that carries result for the request id.
func NewResult(id json.RawMessage, result any) (*Response, error) {
	b, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("encoding the result for id %s: %w", id, err)
	}
	return &Response{JSONRPC: Version, ID: idOrNull(id), Result: b}, nil
}

// NewError builds the error response for the request id.
func NewError(id json.RawMessage, e *Error) *Response {
	return &Response{JSONRPC: Version, ID: idOrNull(id), Error: e}
}

func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return Null
	}
	return id
}

// Encode returns the response as one line, newline included. Strings keep
// their characters as sent: "<" stays "<", so an id comes back byte for byte.
func (r *Response) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encoding the response for id %s: %w", r.ID, err)
	}
	return buf.Bytes(), nil
}
