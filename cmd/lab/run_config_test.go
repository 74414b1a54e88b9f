package main

import (
	"strings"
	"testing"
)

// TestRunClientPrintsStudentConfig plays lesson 3's demonstration and
// checks what a student reads first: the servers.json they would write,
// byte for byte, and on stderr the one line that says what the rig puts
// in its place. The rig's own configuration (the relay's socket, the free
// port) is in neither.
func TestRunClientPrintsStudentConfig(t *testing.T) {
	t.Setenv("LAB_TEST_MAIN", "1") // the relay and lab client are this test binary
	code, out, stderr := lab(t, "run", "--lesson", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	wantHead := "-- servers.json, as you would write it for these servers:\n" +
		"{\"servers\": {\n" +
		"  \"notes\": {\"command\": \"lab\", \"args\": [\"serve\", \"notes\"], \"timeoutMs\": 10000},\n" +
		"  \"tickets\": {\"url\": \"http://127.0.0.1:3115/mcp\", \"timeoutMs\": 10000}\n" +
		"}}\n" +
		"you -> client  {\"command\":\"list_tools\"}\n"
	if !strings.HasPrefix(out, wantHead) {
		t.Errorf("lab run --lesson 3 begins\n%s\nwant\n%s", runFirstLines(out, 6), wantHead)
	}
	wantErr := "lab run: the lab plays these servers itself and records every byte; the --config file your client is given differs from the one above only in that notes is started as `lab relay SOCKET` (a pipe to the lab's own notes server) and tickets listens on a free port of 127.0.0.1.\n"
	if stderr != wantErr {
		t.Errorf("stderr is\n%q\nwant\n%q", stderr, wantErr)
	}
	for _, leak := range []string{"configuration:", ".sock", "lab-rig-", `"relay"`} {
		if strings.Contains(out, leak) || strings.Contains(stderr, leak) {
			t.Errorf("lab run prints the rig's own configuration (%q):\n%s", leak, runFirstLines(out, 8))
		}
	}
}

// runFirstLines is the first n lines of s, for a failure message.
func runFirstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
