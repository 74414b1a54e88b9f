package mcp_test

import (
	"testing"

	"github.com/mcplab/mcplab/lab/mcp"
)

// NameMember is the Mcp-Name rule: the member a method's request names its
// subject by.
func TestNameMember(t *testing.T) {
	for method, want := range map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
		"resources/list": "", "resources/subscribe": "", "tools/list": "", "": ""} {
		if got := mcp.NameMember(method); got != want {
			t.Errorf("NameMember(%q) = %q, want %q", method, got, want)
		}
	}
}
