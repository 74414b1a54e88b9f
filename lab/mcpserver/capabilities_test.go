package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpserver"
)

// TestCapabilitiesFollowWhatIsGiven holds server/discover and the legacy
// initialize to the exact bytes of each kind of server: a server with tools
// only advertises {"tools":{}} as it always did, one with resources
// advertises resources, and each family of methods registered adds its own
// member.
func TestCapabilitiesFollowWhatIsGiven(t *testing.T) {
	empty := mcpserver.MethodFunc(func(context.Context, *mcpserver.Request) (any, error) { return struct{}{}, nil })
	tool := mcpserver.ToolFunc(func(context.Context, *mcpserver.Request, json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	tests := []struct {
		name    string
		tools   bool
		methods []string
		want    string // the capabilities object
	}{
		{"tools only", true, nil, `{"tools":{}}`},
		{"tools and a method of no family", true, []string{"x/empty"}, `{"tools":{}}`},
		{"resources only", false, []string{"resources/list", "resources/read"}, `{"resources":{}}`},
		{"resources with subscribe", false, []string{"resources/read", "resources/subscribe", "resources/unsubscribe"}, `{"resources":{"subscribe":true}}`},
		{"tools, resources and prompts", true, []string{"prompts/get", "resources/read", "prompts/list"}, `{"prompts":{},"resources":{},"tools":{}}`},
		{"completions and logging", false, []string{"completion/complete", "logging/setLevel"}, `{"completions":{},"logging":{}}`},
		{"nothing", false, nil, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &mcpserver.Server{Info: mcp.Implementation{Name: "test", Version: "1.0.0"}, LegacyVersions: []string{"2025-06-18"}, MaxInFlight: 1}
			if tt.tools {
				s.AddTool(mcp.Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)}, tool)
			}
			for _, m := range tt.methods {
				s.HandleMethod(m, empty)
			}
			discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`
			out, _ := serve(t, s, discover)
			want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":` + tt.want +
				`,` + serverMeta + `,"ttlMs":3600000,"cacheScope":"public"}}` + "\n"
			if out != want {
				t.Errorf("server/discover answered\n%swant\n%s", out, want)
			}
			checkSchema(t, []string{discover}, out)
			out, _ = serve(t, s, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
			want = `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":` + tt.want + `,"serverInfo":{"name":"test","version":"1.0.0"}}}` + "\n"
			if out != want {
				t.Errorf("initialize answered\n%swant\n%s", out, want)
			}
		})
	}
}
