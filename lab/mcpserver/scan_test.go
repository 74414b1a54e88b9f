package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/wire"
)

var fastSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","arguments":{"k":[1,2.5e3,-0,true,null,"\u00e9"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0", "id":1,"method":"a"}`,
	`{"jsonrpc":"2.0","id":01,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"a"}`,
	`{"jsonrpc":"2.0","id":null,"method":"a"}`,
	`{"jsonrpc":"2.0","\u0069d":1,"method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a\"b"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","params":[1]}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"NAME":"x","version":"1"}}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","params":{"cursor":null,"name":5}}`,
	`{"jsonrpc":"2.0","id":1,"method":"a"} `,
	`{"jsonrpc":"2.0","id":1,"method":"a","x":tru}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\\u0000\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	`{}`, `[]`, `null`, `"x"`,
}

// FuzzFastPath holds the fast path to the general one: whatever it accepts,
// the general code must accept and read the same way.
func FuzzFastPath(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastPath(t, line)
	})
}

func TestFastPathSeeds(t *testing.T) {
	for _, s := range fastSeeds {
		checkFastPath(t, []byte(s))
	}
	if _, _, ok := fastRequest([]byte(fastSeeds[0]), make([]member, 0, 8)); !ok {
		t.Error("the fast path refuses the commonest request")
	}
}

func checkFastPath(t *testing.T, line []byte) {
	t.Helper()
	var buf [8]member
	fast, _, ok := fastRequest(line, buf[:])
	if ok {
		slow, problem := wire.ParseRequest(line)
		if problem != nil {
			t.Fatalf("%q: the fast path took it, ParseRequest says %v", line, problem.Err)
		}
		if fast.Kind != slow.Kind || fast.Method != slow.Method || !bytes.Equal(fast.ID, slow.ID) || !sameJSON(fast.Params, slow.Params) {
			t.Fatalf("%q:\nfast %+v\nslow %+v", line, fast, slow)
		}
	}
	if !ok {
		return
	}
	f, fok := paramFields(fast.Params)
	if !fok {
		return
	}
	s, sok := slowFields(fast.Params)
	if !sok || !bytes.Equal(f.meta, s.meta) || !bytes.Equal(f.name, s.name) || !bytes.Equal(f.arguments, s.arguments) ||
		!bytes.Equal(f.cursor, s.cursor) || f.hasMeta != s.hasMeta || f.hasName != s.hasName || f.hasCursor != s.hasCursor {
		t.Fatalf("%q: params read differently:\nfast %+v\nslow %+v", line, f, s)
	}
	meta, mok := fastMeta(f)
	if !mok {
		return
	}
	want, err := mcp.ReadRequestMeta(fast.Params)
	if err != nil {
		t.Fatalf("%q: the fast path took _meta, ReadRequestMeta says %v", line, err)
	}
	if meta.ProtocolVersion != want.ProtocolVersion || !bytes.Equal(meta.ClientCapabilities, want.ClientCapabilities) || !reflect.DeepEqual(meta.ClientInfo, want.ClientInfo) {
		t.Fatalf("%q: _meta read differently:\nfast %+v\nslow %+v", line, meta, want)
	}
}

func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// FuzzToolResultEncoding holds appendToolResult to what encoding/json
// writes for the same result.
func FuzzToolResultEncoding(f *testing.F) {
	f.Add("plain text", "text", true, `{"a":1}`)
	f.Add("line\nbreak \"quoted\" \\ tab\t \x01 \u2028 \u2029 é <b>&", "text", false, `[1, 2]`)
	f.Add("bad \xff utf-8", "", false, ``)
	f.Fuzz(func(t *testing.T, text, typ string, isError bool, structured string) {
		res := &mcp.CallToolResult{Content: []mcp.Content{{Type: typ, Text: text}, mcp.TextContent(typ)}, IsError: isError}
		if structured != "" && json.Valid([]byte(structured)) {
			res.StructuredContent = json.RawMessage(structured)
		} else if structured != "" {
			res.StructuredContent = map[string]string{"s": structured}
		}
		meta := json.RawMessage(`{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}`)
		want, err := wire.MarshalCompact(struct {
			ResultType string `json:"resultType"`
			*mcp.CallToolResult
			Meta json.RawMessage `json:"_meta"`
		}{mcp.ResultComplete, res, meta})
		if err != nil {
			t.Skip(err)
		}
		got, err := appendToolResult(nil, res, meta)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got  %s (%v)\nwant %s", got, err, want)
		}
		wantLegacy, _ := wire.MarshalCompact(res)
		if got, _ := appendToolResult(nil, res, nil); !bytes.Equal(got, wantLegacy) {
			t.Fatalf("legacy:\ngot  %s\nwant %s", got, wantLegacy)
		}
	})
}
