package main

import (
	"strings"
	"testing"
)

// TestRunClientLesson plays lesson 3's demonstration with the lab's own
// client, through real relay processes: the transcript shows each command
// and its answer, the traffic with both servers in between, and the
// day's points (pagination, the stream's notification before the
// response, the sentinel in Mcp-Name, the cut note, the teardown).
func TestRunClientLesson(t *testing.T) {
	t.Setenv("LAB_TEST_MAIN", "1") // the relay and lab client are this test binary
	code, out, stderr := lab(t, "run", "--lesson", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// Every command is answered before the next is given.
	var commands, answers int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "you -> client  "):
			if commands != answers {
				t.Errorf("command %d was given before command %d was answered", commands+1, commands)
			}
			commands++
		case strings.HasPrefix(l, "client -> you  "):
			answers++
		}
	}
	if commands != 6 || answers != 6 {
		t.Errorf("%d commands and %d answers, want 6 and 6:\n%s", commands, answers, out)
	}
	in := func(want ...string) {
		t.Helper()
		at := 0
		for _, w := range want {
			i := strings.Index(out[at:], w)
			if i < 0 {
				t.Errorf("the transcript lacks %q after byte %d:\n%s", w, at, out)
				return
			}
			at += i + len(w)
		}
	}
	in(`"cursor":"dG9vbHM6MjozbTdma3IzNmprcG53"`, `"name":"add_note"`)
	in(`you -> client  {"command":"call_tool","name":"mcp__tickets__get_ticket"`, `"method":"notifications/progress"`, `"id":3,"result"`, `client -> you  {"text":"T-104 (open): Nightly queue stalls; workers stop heartbeating","isError":false}`)
	in(`Mcp-Name: =?base64?csOpc3Vtw6k=?=] {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"résumé"`)
	in(`client -> you  {"text":"0001  checked queue depth`, `[16000 more characters were cut from this result.]","isError":false}`)
	// The client closes the relay's stdin, then kills it: whether the
	// relay passes the end of its input on before it dies depends on the
	// machine's load, so only its end and the client's are certain.
	in("-- stdin closed", "-- notes#1 gone", "-- client exited with status 0")
	if strings.Contains(out, "\x1b") {
		t.Error("the transcript holds a terminal escape")
	}
}
