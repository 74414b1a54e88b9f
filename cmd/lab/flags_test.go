package main

import (
	"strings"
	"testing"
)

// TestFlagUnknownSaysItOnce checks, for every command of the table, that a
// flag the command does not have is reported once, with the pointer to the
// help, and without the whole usage; -h still prints the usage, once.
func TestFlagUnknownSaysItOnce(t *testing.T) {
	for _, c := range commands() {
		cmd := c.name
		code, stdout, stderr := lab(t, cmd, "--bogus")
		want := "lab " + cmd + ": flag provided but not defined: -bogus\nRun \"lab help " + cmd + "\" for usage.\n"
		if code != 2 || stdout != "" || stderr != want {
			t.Errorf("lab %s --bogus: exit %d, stdout %q, stderr:\n%s\nwant exit 2, no stdout, stderr:\n%s", cmd, code, stdout, stderr, want)
		}
	}
	code, _, stderr := lab(t, "grade", "-h")
	if code != 0 || strings.Count(stderr, "Usage: lab grade") != 1 || strings.Contains(stderr, "not defined") {
		t.Errorf("lab grade -h: exit %d, stderr:\n%s\nwant exit 0 and the usage once", code, stderr)
	}
}
