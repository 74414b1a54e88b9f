package clientscenario

import (
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/rig"
)

// A servers line's hold= (or its former spelling hang=) and cut= take lesson 3's form (a tool's name) and
// the form of any request that names something; a hook that names nothing
// is refused with the line and what to write.
func TestServerHooks(t *testing.T) {
	got, err := parseServers([]byte("notes    stdio  notes    timeout=3s hold=search\n" +
		"docs     stdio  notes    hang=resources/read:notes://retry-budget cut=resources/list\n" +
		"tickets  http   tickets  cut=prompts/get:summary\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ hold, cut rig.Hook }{
		{rig.CallOf("search"), rig.Hook{}},
		{rig.Hook{Method: "resources/read", Name: "notes://retry-budget"}, rig.Hook{Method: "resources/list"}},
		{rig.Hook{}, rig.Hook{Method: "prompts/get", Name: "summary"}},
	}
	for i, w := range want {
		if got[i].Hold != w.hold || got[i].Cut != w.cut {
			t.Errorf("server %s: hold %+v, cut %+v; want %+v, %+v", got[i].Alias, got[i].Hold, got[i].Cut, w.hold, w.cut)
		}
	}
	_, err = parseServers([]byte("notes stdio notes hold=resources/list:notes://x\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `line 1: hold=resources/list:notes://x: the hook "resources/list:notes://x" names a resources/list`) {
		t.Errorf("a hook on a method that names nothing: %v", err)
	}
	_, err = parseServers([]byte("notes stdio notes hold=\n"))
	if err == nil || err.Error() != `line 1: unknown option "hold=" (want timeout=D, down, hold=TOOL, cut=TOOL)` {
		t.Errorf("an empty hang: %v", err)
	}
}
