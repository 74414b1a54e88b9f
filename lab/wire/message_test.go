package wire

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		line string
		kind Kind   // for a usable message
		code int    // for a problem
		id   string // the id of the message or of the answer
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, KindRequest, 0, `3`},
		{`{"jsonrpc":"2.0","id":"a b","method":"ping"}`, KindRequest, 0, `"a b"`},
		{` { "jsonrpc" : "2.0", "id" : 12345678901234567890 , "method":"x"} `, KindRequest, 0, `12345678901234567890`},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, KindNotification, 0, ``},
		{`{"jsonrpc":"2.0","method":"wait","params":[1]}`, KindNotification, 0, ``},
		{`not json at all`, 0, CodeParseError, `null`},
		{"\xff", 0, CodeParseError, `null`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} x`, 0, CodeParseError, `null`},
		{`[1,2]`, 0, CodeInvalidRequest, `null`},
		{`null`, 0, CodeInvalidRequest, `null`},
		{`"text"`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":5,"method":5}`, 0, CodeInvalidRequest, `5`},
		{`{"jsonrpc":"1.0","id":"a","method":"ping"}`, 0, CodeInvalidRequest, `"a"`},
		{`{"id":7,"method":"ping"}`, 0, CodeInvalidRequest, `7`},
		{`{"jsonrpc":2.0,"id":7,"method":"ping"}`, 0, CodeInvalidRequest, `7`},
		{`{"jsonrpc":"2.0","id":7}`, 0, CodeInvalidRequest, `7`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":[],"method":"ping"}`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":9,"method":"wait","params":80}`, 0, CodeInvalidRequest, `9`},
		{`{"jsonrpc":"2.0","method":5}`, 0, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":2,"method":null}`, 0, CodeInvalidRequest, `2`},
	}
	for _, tt := range tests {
		msg, p := ParseRequest([]byte(tt.line))
		switch {
		case tt.code != 0:
			if p == nil {
				t.Errorf("%s: got a %v, want error %d", tt.line, msg.Kind, tt.code)
				continue
			}
			if p.Err.Code != tt.code || string(p.ID) != tt.id {
				t.Errorf("%s: got error %d id %s, want error %d id %s", tt.line, p.Err.Code, p.ID, tt.code, tt.id)
			}
		default:
			if p != nil {
				t.Errorf("%s: got problem %v, want a %v", tt.line, p.Err, tt.kind)
				continue
			}
			if msg.Kind != tt.kind || string(msg.ID) != tt.id {
				t.Errorf("%s: got %v id %s, want %v id %s", tt.line, msg.Kind, msg.ID, tt.kind, tt.id)
			}
		}
	}
}

func TestResponseKeepsIDBytes(t *testing.T) {
	for _, id := range []string{`12345678901234567890`, `"<a&b>"`, `"\u00e9"`, `-0`, `"naïve ☕"`} {
		r, err := NewResult(json.RawMessage(id), struct{}{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n"
		if string(b) != want {
			t.Errorf("got %s want %s", b, want)
		}
	}
}

func TestParseResponse(t *testing.T) {
	good := []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"m","data":{"a":1}}}`,
	}
	for _, l := range good {
		if m, why := ParseResponse([]byte(l)); m == nil {
			t.Errorf("%s: rejected: %s", l, why)
		}
	}
	bad := map[string]string{
		`Server starting...`:                                         "it is not JSON",
		`{"jsonrpc":"2.0","result":{}}`:                              `it has no "id" member (a response must carry its request's id, or null)`,
		`{"jsonrpc":"2.0","id":1}`:                                   `it has neither "result" nor "error"`,
		`{"jsonrpc":"2.0","id":1,"result":1,"error":{}}`:             `it has both "result" and "error"; a response has exactly one`,
		`{"id":1,"result":{}}`:                                       `it lacks "jsonrpc":"2.0"`,
		`{"jsonrpc":"2.0","id":1,"method":"x"}`:                      "it is a request or notification (it has a method), not a response",
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":""}}`: `its "error" has no integer "code"`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1}}`:                `its "error" has no string "message"`,
		`{"jsonrpc":"2.0","id":1.5,"result":{}}`:                     `its "id" is the number 1.5; an id is a string, an integer or null`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`:                     "it is an array, not a JSON object",
	}
	for l, want := range bad {
		if m, why := ParseResponse([]byte(l)); m != nil || why != want {
			t.Errorf("%s: got %q, want %q", l, why, want)
		}
	}
}

func TestSameID(t *testing.T) {
	if !SameID(json.RawMessage(`"a"`), json.RawMessage(`"\u0061"`)) {
		t.Error(`"a" and "\u0061" are the same id`)
	}
	if SameID(json.RawMessage(`1`), json.RawMessage(`"1"`)) {
		t.Error(`1 and "1" are different ids`)
	}
	if LooseIDKey(json.RawMessage(`1`)) != LooseIDKey(json.RawMessage(`"1"`)) {
		t.Error(`1 and "1" share a loose key`)
	}
}

// FuzzParseRequest checks that any line gets exactly one classification,
// that a problem's answer is well formed and that a request's id survives a
// round trip through a response byte for byte.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"wait","params":{"ms":10}}`,
		`{"jsonrpc":"2.0","method":"notifications/x"}`,
		`not json at all`, `[1,2]`, `{"jsonrpc":"2.0","id":5,"method":5}`,
		"\xff", `{"jsonrpc":"2.0","id":1.0,"method":"a"}`, `{"id":"\u00e9","jsonrpc":"2.0","method":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, p := ParseRequest(line)
		if (msg == nil) == (p == nil) {
			t.Fatalf("want exactly one of message and problem, got %v and %v", msg, p)
		}
		if p != nil {
			if p.Err.Code != CodeParseError && p.Err.Code != CodeInvalidRequest {
				t.Fatalf("problem code %d", p.Err.Code)
			}
			if !bytes.Equal(p.ID, Null) && !UsableID(p.ID) {
				t.Fatalf("problem id %s is neither null nor usable", p.ID)
			}
			if p.Err.Code == CodeParseError && json.Valid(line) && utf8.Valid(line) {
				t.Fatalf("valid UTF-8 JSON %q got a parse error", line)
			}
			r, err := NewError(p.ID, p.Err).Encode()
			if err != nil {
				t.Fatal(err)
			}
			if m, why := ParseResponse(bytes.TrimSuffix(r, []byte("\n"))); m == nil {
				t.Fatalf("our own error answer %s is not a response: %s", r, why)
			}
			return
		}
		if msg.Kind == KindRequest {
			r, err := NewResult(msg.ID, map[string]int{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.Encode()
			if err != nil {
				t.Fatal(err)
			}
			back, why := ParseResponse(bytes.TrimSuffix(b, []byte("\n")))
			if back == nil {
				t.Fatalf("answer %s is not a response: %s", b, why)
			}
			if !SameID(back.ID, msg.ID) {
				t.Fatalf("id %s came back as %s", msg.ID, back.ID)
			}
		}
	})
}
