package wire

import (
	"encoding/json"
	"io"
	"testing"
)

func TestAppendLines(t *testing.T) {
	if got := string(AppendResultLine(nil, json.RawMessage(`"a"`), json.RawMessage(`{}`))); got != `{"jsonrpc":"2.0","id":"a","result":{}}`+"\n" {
		t.Errorf("result line %q", got)
	}
	e := &Error{Code: CodeParseError, Message: "Parse error: <bad> & worse", Data: json.RawMessage(`{"at":1}`)}
	got, err := AppendErrorLine(nil, nil, e)
	if err != nil || string(got) != `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: <bad> & worse","data":{"at":1}}}`+"\n" {
		t.Errorf("error line without id %q (%v)", got, err)
	}
	got, _ = AppendErrorLine(nil, json.RawMessage(`7`), &Error{Code: CodeMethodNotFound, Message: "Method not found: x"})
	if string(got) != `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found: x"}}`+"\n" {
		t.Errorf("error line with id %q", got)
	}
	if _, err := AppendErrorLine(nil, nil, &Error{Code: 1, Message: "x", Data: json.RawMessage(`{bad`)}); err == nil {
		t.Error("data that is not JSON encoded without an error")
	}
}

// HasLine sees a whole line that is not blank in what the framer holds,
// and never reads to find one.
func TestHasLine(t *testing.T) {
	pr, pw := io.Pipe()
	f := NewFramer(pr)
	go func() {
		io.WriteString(pw, "one\ntwo\n  \nthr")
	}()
	if line, err := f.Next(); err != nil || string(line) != "one" {
		t.Fatalf("first line %q, %v", line, err)
	}
	if !f.HasLine() {
		t.Error(`"two" is held whole, but HasLine says no`)
	}
	if line, _ := f.Next(); string(line) != "two" {
		t.Fatalf("second line %q", line)
	}
	if f.HasLine() {
		t.Error("only a blank line and half a line are held, but HasLine says yes")
	}
	go func() {
		io.WriteString(pw, "ee\n")
		pw.Close()
	}()
	if line, _ := f.Next(); string(line) != "three" {
		t.Errorf("third line %q", line)
	}
	if f.HasLine() {
		t.Error("nothing is left, but HasLine says yes")
	}
}
