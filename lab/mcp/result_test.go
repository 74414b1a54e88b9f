package mcp

import (
	"encoding/json"
	"testing"
)

// TestResultBytes pins the bytes of the two results a tool answers with:
// TextResult's text as it is (a % in it stays), ToolError's formatted and
// marked isError.
func TestResultBytes(t *testing.T) {
	for _, c := range []struct {
		r    *CallToolResult
		want string
	}{
		{TextResult("50% done, \"quoted\"\n"), `{"content":[{"type":"text","text":"50% done, \"quoted\"\n"}]}`},
		{ToolError("There is no note %q.", "x"), `{"content":[{"type":"text","text":"There is no note \"x\"."}],"isError":true}`},
	} {
		b, err := json.Marshal(c.r)
		if err != nil || string(b) != c.want {
			t.Errorf("got %s, %v\nwant %s", b, err, c.want)
		}
	}
}
