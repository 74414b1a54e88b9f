package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// ParseResponse reads one line of a server's output as a client must. It
// returns the response it holds, or a sentence saying why the line is not a
// JSON-RPC response: not JSON, not an object, no "jsonrpc":"2.0", no id,
// neither or both of result and error, an error without an integer code or a
// string message, or a request or notification where a response belongs.
func ParseResponse(line []byte) (*Message, string) {
	if !utf8.Valid(line) {
		return nil, "it is not valid UTF-8"
	}
	if !json.Valid(line) {
		return nil, "it is not JSON"
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
		return nil, "it is " + describeJSON(line) + ", not a JSON object"
	}
	if v, ok := obj["jsonrpc"]; !ok || !bytes.Equal(bytes.TrimSpace(v), []byte(`"2.0"`)) {
		return nil, `it lacks "jsonrpc":"2.0"`
	}
	if _, ok := obj["method"]; ok {
		return nil, "it is a request or notification (it has a method), not a response"
	}
	rawID, ok := obj["id"]
	if !ok {
		return nil, `it has no "id" member (a response must carry its request's id, or null)`
	}
	id := Compact(rawID)
	if !bytes.Equal(id, Null) && !UsableID(id) {
		return nil, fmt.Sprintf(`its "id" is %s; an id is a string, an integer or null`, describeJSON(id))
	}
	result, hasResult := obj["result"]
	rawErr, hasErr := obj["error"]
	switch {
	case hasResult && hasErr:
		return nil, `it has both "result" and "error"; a response has exactly one`
	case !hasResult && !hasErr:
		return nil, `it has neither "result" nor "error"`
	case hasResult:
		return &Message{Kind: KindResponse, ID: id, Result: Compact(result)}, ""
	}
	var e struct {
		Code    *json.RawMessage `json:"code"`
		Message *string          `json:"message"`
		Data    json.RawMessage  `json:"data"`
	}
	if err := json.Unmarshal(rawErr, &e); err != nil {
		return nil, `its "error" is not an object with "code" and "message"`
	}
	if e.Code == nil || !UsableID(*e.Code) || bytes.HasPrefix(bytes.TrimSpace(*e.Code), []byte(`"`)) {
		return nil, `its "error" has no integer "code"`
	}
	if e.Message == nil {
		return nil, `its "error" has no string "message"`
	}
	var code int
	if err := json.Unmarshal(*e.Code, &code); err != nil {
		return nil, `its "error" code is out of range`
	}
	return &Message{Kind: KindResponse, ID: id, Error: &Error{Code: code, Message: *e.Message, Data: e.Data}}, ""
}

// SameID reports whether two ids are the same JSON value of the same type:
// 1 and 1 are, 1 and "1" are not, "a" and "\u0061" are.
func SameID(a, b json.RawMessage) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	if (a[0] == '"') != (b[0] == '"') {
		return false
	}
	if a[0] != '"' {
		return bytes.Equal(a, b)
	}
	var sa, sb string
	if json.Unmarshal(a, &sa) != nil || json.Unmarshal(b, &sb) != nil {
		return false
	}
	return sa == sb
}

// LooseIDKey returns a map key under which an id and the same id written as
// the other JSON type meet: 1 and "1" have the same loose key. Graders use it
// to find the answer to a request even when the server got the id's type
// wrong, and then judge the type on its own.
func LooseIDKey(id json.RawMessage) string {
	b := bytes.TrimSpace(id)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			return s
		}
	}
	return string(b)
}

// ResponseShape reports whether line has the shape of a JSON-RPC response,
// right or wrong: a JSON object with no "method" member and an "id", a
// "result" or an "error". A line ParseResponse refuses may still have it
// (a response without "jsonrpc", with an id of the wrong type): it is then
// a faulty answer, to be judged as one, not a line that is no message at
// all. It gives the id, compacted, when the object has one.
func ResponseShape(line []byte) (shaped bool, id json.RawMessage, hasID bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return false, nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return false, nil, false
	}
	_, hasMethod := obj["method"]
	raw, hasID := obj["id"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	if hasMethod || !hasID && !hasResult && !hasError {
		return false, nil, false
	}
	if hasID {
		id = Compact(raw)
	}
	return true, id, hasID
}
