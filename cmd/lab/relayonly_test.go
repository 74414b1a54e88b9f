package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/rig"
)

// The relay copy a sandbox shows a client runs only the relay: a run
// script that starts the copy as the lab's client, the way a student
// would borrow the reference, is refused with a message that says why,
// while the lab it was copied from still runs every command.
func TestRelayCopyRunsOnlyTheRelay(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	relay := filepath.Join(home, "lab")
	if err := rig.CopyRelayOnly(exe, relay, 0o111); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(relay); err != nil || st.Mode().Perm() != 0o111 {
		t.Fatalf("the copy: %v, %v; want mode 0111", st, err)
	}
	scenario := filepath.Join(home, "s1")
	if err := os.Mkdir(scenario, 0o700); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(scenario, "servers.json")
	if err := os.WriteFile(config, []byte(`{"servers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run")
	if err := os.WriteFile(run, []byte("#!/bin/sh\nexec \"$(dirname \"$(dirname \"$2\")\")/lab\" client \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	wantRefusal := "lab: refused \"client\": " + rig.RelayOnlyRefusal + "\n"
	for _, tt := range []struct {
		name   string
		cmd    []string
		code   int
		stderr string
	}{
		{"the run script", []string{run, "--config", config}, exitCannot, wantRefusal},
		{"serve", []string{relay, "serve", "reader"}, exitCannot, "lab: refused \"serve\": " + rig.RelayOnlyRefusal + "\n"},
		{"no command", []string{relay}, exitCannot, "lab: refused no command: " + rig.RelayOnlyRefusal + "\n"},
		{"relay itself", []string{relay, "relay"}, exitCannot, "lab relay: lab relay takes one socket path; the grader writes it into the configuration it gives your client\nRun \"lab help relay\" for usage.\n"},
	} {
		cmd := exec.Command(tt.cmd[0], tt.cmd[1:]...)
		cmd.Env = append(os.Environ(), "LAB_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0")
		cmd.Stdin = strings.NewReader(`{"op":"list"}` + "\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if code != tt.code || stderr.String() != tt.stderr || stdout.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr %q", tt.name, code, stdout.String(), stderr.String(), tt.code, tt.stderr)
		}
	}
	// The lab it was copied from is not a relay-only copy.
	cmd := exec.Command(exe, "version")
	cmd.Env = append(os.Environ(), "LAB_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "lab ") {
		t.Errorf("the original lab version: %v, %q", err, out)
	}
	// A copy of a copy, or of a program that is not the lab, is refused.
	if err := rig.CopyRelayOnly(run, filepath.Join(home, "other"), 0o111); err == nil || !strings.Contains(err.Error(), "holds its relay-only mark 0 times") {
		t.Errorf("copying a program that is not the lab: %v", err)
	}
	if err := rig.CopyRelayOnly(exe, relay, 0o111); err == nil {
		t.Error("copying over an existing file succeeded")
	}
}
