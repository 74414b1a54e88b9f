package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/mcp"
)

func TestReadRequestMeta(t *testing.T) {
	tests := []struct {
		params, version, info, fails string // fails: a piece of the error message
	}{
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, "2026-07-28", "", ""},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}`, "2026-07-28", "t", ""},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":7}}`, "2026-07-28", "", ""},
		{``, "", "", "the request has no params"},
		{`[1]`, "", "", "params must be an object"},
		{`{}`, "", "", "params._meta is missing"},
		{`{"_meta":null}`, "", "", "params._meta is missing"},
		{`{"_meta":[]}`, "", "", "params._meta must be an object"},
		{`{"_meta":{}}`, "", "", "lacks io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, "", "", "lacks io.modelcontextprotocol/clientCapabilities"},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":5,"io.modelcontextprotocol/clientCapabilities":{}}}`, "", "", "must be a non-empty string"},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":true}}`, "", "", "must be an object"},
	}
	for _, tt := range tests {
		m, err := mcp.ReadRequestMeta(json.RawMessage(tt.params))
		switch {
		case tt.fails == "" && err != nil:
			t.Errorf("%s: %v", tt.params, err)
		case tt.fails != "" && (err == nil || err.Code != -32602 || !strings.Contains(err.Message, tt.fails)):
			t.Errorf("%s: got %v, want -32602 saying %q", tt.params, err, tt.fails)
		case tt.fails == "" && (m.ProtocolVersion != tt.version || (tt.info == "") != (m.ClientInfo == nil)):
			t.Errorf("%s: read %+v", tt.params, m)
		}
	}
}

func TestUnsupportedVersion(t *testing.T) {
	e := mcp.UnsupportedVersion([]string{"2026-07-28"}, "1900-01-01")
	if e.Code != -32022 || string(e.Data) != `{"supported":["2026-07-28"],"requested":"1900-01-01"}` {
		t.Errorf("%+v %s", e, e.Data)
	}
}
