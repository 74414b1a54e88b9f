package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const lesson2 = "../../lessons/02-json-rpc-on-the-wire"

func TestValidateLessonFilesAndOfficialExamples(t *testing.T) {
	// wire/ and sessions/ (data/*.json are not messages), and the official
	// examples the repository keeps (lab/schema/testdata/examples).
	args := []string{"validate", "-q", lesson2, "../../lab/schema/testdata/examples"}
	code, out, errOut := lab(t, args...)
	if code != 0 || !strings.Contains(out, ", 0 failed\n") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

func TestValidateReportsEachReason(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"), 0o644)
	invalid := filepath.Join(dir, "slips.invalid.jsonl")
	os.WriteFile(invalid, []byte("not json\n"+`{"jsonrpc":"2.0","method":"notifications/x"}`+"\n"), 0o644)
	code, out, _ := lab(t, "validate", bad, invalid)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"FAIL  " + bad + " (wire file, 1 message)",
		"line 1 does not meet ListToolsRequest: at the message: missing property 'params'",
		"FAIL  " + invalid + " (invalid wire file, 2 messages)",
		"line 1 fails, as it should: it is not JSON",
		"line 2 meets JSONRPCNotification, but this file holds mistakes: each line must fail",
		"2 files checked against the MCP 2026-07-28 schema, 2 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

func TestValidateUsage(t *testing.T) {
	for _, args := range [][]string{{"validate"}, {"validate", "/no/such/file.jsonl"}, {"capture"}, {"capture", "out", "in.jsonl"}} {
		if code, _, errOut := lab(t, args...); code != 2 || errOut == "" {
			t.Errorf("lab %v: exit %d, stderr %q; want 2 and a reason", args, code, errOut)
		}
	}
}

// lab capture records a session with the real `lab serve helpdesk`
// process, and what it writes passes lab validate.
func TestCaptureHelpdesk(t *testing.T) {
	out := filepath.Join(t.TempDir(), "session")
	args := append([]string{"capture", out, filepath.Join(lesson2, "wire", "03-errors.jsonl"), "--"}, selfLab("serve", "helpdesk")...)
	code, _, errOut := lab(t, args...)
	if code != 0 || !strings.Contains(errOut, "the server exited with status 0") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	md, err := os.ReadFile(out + ".md")
	if err != nil || !strings.Contains(string(md), `"message": "Method not found: tickets/get"`) {
		t.Errorf("the Markdown lacks the -32601 answer (%v):\n%s", err, md)
	}
	if code, report, _ := lab(t, "validate", out+".jsonl"); code != 0 || !strings.Contains(report, "recorded session, 10 messages") {
		t.Errorf("validate: exit %d\n%s", code, report)
	}
}
