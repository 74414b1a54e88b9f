package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/mcplab/mcplab/lab/wire"
)

// countingReceiver counts what a conn hands over.
type countingReceiver struct {
	delivered, rejected, broken int
}

func (r *countingReceiver) Deliver(m *wire.Message, _ json.RawMessage) {
	if m == nil || (m.Kind != wire.KindResponse && m.Kind != wire.KindNotification) {
		panic("delivered something that is neither a response nor a notification")
	}
	r.delivered++
}
func (r *countingReceiver) Reject([]byte, string) { r.rejected++ }
func (r *countingReceiver) Broken(error)          { r.broken++ }

// Whatever a server answers over HTTP, as JSON or as an event stream, the
// client returns without panicking, and says the request failed unless the
// answer held its response.
func FuzzHTTPAnswer(f *testing.F) {
	f.Add([]byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), true)
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\n"), true)
	f.Add([]byte(": ping\r\n\r\ndata:{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"x\"}}\r\n\r\n"), true)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`), false)
	f.Add([]byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}`), false)
	f.Add([]byte("\xff\xfe"), false)
	f.Fuzz(func(t *testing.T, body []byte, stream bool) {
		recv := &countingReceiver{}
		c := &httpConn{t: &HTTP{MaxMessage: 1 << 12}, recv: recv}
		resp := &http.Response{Status: "200 OK", StatusCode: 200, Body: io.NopCloser(bytes.NewReader(body))}
		var err error
		if stream {
			err = c.readStream(context.Background(), resp, json.RawMessage("1"))
		} else {
			err = c.readJSON(resp, json.RawMessage("1"))
		}
		if err == nil && recv.delivered == 0 {
			t.Fatalf("success without a message delivered: %q", body)
		}
	})
}

// Whatever a stdio server writes, the stream conn hands over messages or
// rejects lines, and reports the end once.
func FuzzStreamLines(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nnot json\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"roots/list\"}\r\n\n\n{"))
	f.Fuzz(func(t *testing.T, out []byte) {
		recv := &countingReceiver{}
		c := newStreamConn(nopWriteCloser{}, recv)
		c.read(bytes.NewReader(out), 1<<12, c.broke)
		if recv.broken != 1 {
			t.Fatalf("the end was reported %d times", recv.broken)
		}
	})
}

type nopWriteCloser struct{}

func (nopWriteCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriteCloser) Close() error                { return nil }
