package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcplab/mcplab/grading"
)

// TestCountOf: a count a user reads takes the noun's right form, never
// "(s)".
func TestCountOf(t *testing.T) {
	for n, want := range map[int]string{0: "0 submissions", 1: "1 submission", 2: "2 submissions"} {
		if got := grading.CountOf(n, "submission", "submissions"); got != want {
			t.Errorf("CountOf(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestValidateLineGrammar: a line that is not JSON reads "line 2 is not
// JSON", not "line 2 it is not JSON", and the counts are singular where
// there is one.
func TestValidateLineGrammar(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(f, []byte("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := lab(t, "validate", f)
	want := "FAIL  " + f + " (wire file, 2 messages)\n" +
		"      line 2 is not JSON, so it is not a message at all\n" +
		"1 file checked against the MCP 2026-07-28 schema, 1 failed\n"
	if code != exitFailed || out != want {
		t.Errorf("exit %d, output\n%s\nwant exit %d and\n%s", code, out, exitFailed, want)
	}
	if got := lineVerdict("does not meet X"); got != "does not meet X" {
		t.Errorf("lineVerdict changed a verdict that needs no change: %q", got)
	}
}
