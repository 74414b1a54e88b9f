package notes

import (
	"context"
	"fmt"
	"testing"
)

// TestCallAnswers pins the exact answer line of each tool to good and bad
// arguments, in one session (so the note added is then read): an argument
// whose name differs only in case counts, a missing, null or mistyped one
// gets the tool's error.
func TestCallAnswers(t *testing.T) {
	conn := New(NewLibrary()).NewConn()
	for i, tt := range []struct{ params, want string }{
		{`{"name":"search","arguments":{"query":"division"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"1 note(s) mention \\\"division\\\":\\ndivide-by-zero: Division by zero in the invoice totals\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"search","arguments":{"query":"  "}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"4 note(s) mention \\\"  \\\":\\ndivide-by-zero: Division by zero in the invoice totals\\nincident-log: Incident log: the night the queue stalled\\nretry-budget: Retry budget for the payment API\\nstdout-logs: Logs on stdout broke the MCP server\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"search","arguments":{"QUERY":"stderr"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"1 note(s) mention \\\"stderr\\\":\\nstdout-logs: Logs on stdout broke the MCP server\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"search","arguments":{"query":["x"]}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"search needs the argument query, a string such as \\\"division by zero\\\".\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"search"}`,
			"{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"search needs the argument query, a string such as \\\"division by zero\\\".\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"read_note","arguments":{"id":"retry-budget"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"Retry at most three times with exponential backoff starting at 200 ms; give up after 5 seconds in total.\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"read_note","arguments":{"id":"nope"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"There is no note \\\"nope\\\"; search lists the ids there are.\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"read_note","arguments":{"Id":"stdout-logs"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"A print statement on stdout corrupted the protocol stream; the client reported a parse error. Server logs go to stderr only.\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"read_note","arguments":{"id":null}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"read_note needs the argument id, a string such as \\\"divide-by-zero\\\"; search lists the ids.\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"add_note","arguments":{"title":"T","text":"x%dy"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"Added note note-1.\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"read_note","arguments":{"id":"note-1"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":11,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"x%dy\"}],\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"add_note","arguments":{"title":"T"}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"add_note needs the arguments title and text, both strings.\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"add_note","arguments":{"title":"T","text":1}}`,
			"{\"jsonrpc\":\"2.0\",\"id\":13,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"add_note needs the arguments title and text, both strings.\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcplab-notes\",\"title\":\"Notes library\",\"version\":\"1.0.0\"}}}}\n"},
		{`{"name":"add_note","arguments":"title"}`,
			"{\"jsonrpc\":\"2.0\",\"id\":14,\"error\":{\"code\":-32602,\"message\":\"Invalid params: params.arguments must be an object\"}}\n"},
	} {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			i+1, tt.params[:len(tt.params)-1])
		if got := conn.Answer(context.Background(), []byte(line)).Line; string(got) != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.params, got, tt.want)
		}
	}
}
