//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user TestNonRootSandboxKeepsResultsAndKeyPrivate grades as.
const nobody = 65534

// TestNonRootSandboxKeepsResultsAndKeyPrivate grades, as a user who is not
// root, a class with a student whose run script tries to forge the results
// folder and to read the key that signs the records, then starts the
// correct bash server. Its program runs as that same user, and only the
// process sandbox's file rules (Landlock) keep it out: it can do neither,
// says so on stderr, and still grades 21/21, so the rules leave a correct
// server alone.
func TestNonRootSandboxKeepsResultsAndKeyPrivate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to grade as another user who is not")
	}
	if v, _, errno := syscall.Syscall(444, 0, 0, 1); errno != 0 || v == 0 {
		t.Skip("the kernel has no Landlock: a non-root sandbox cannot keep the results private here, and says so")
	}
	dir, bin, servers := labForClass(t)
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "results")
	key := filepath.Join(home, ".config", "mcplab", "record-key")
	attack := "#!/bin/sh\n" +
		"if echo forged > " + out + "/forged.txt 2>/dev/null; then echo 'attack: wrote in the results' >&2; else echo 'attack: could not write in the results' >&2; fi\n" +
		"if cat " + key + " >/dev/null 2>&1; then echo 'attack: read the record key' >&2; else echo 'attack: could not read the record key' >&2; fi\n" +
		"if echo x > " + home + "/planted 2>/dev/null; then echo 'attack: wrote in the home' >&2; else echo 'attack: could not write in the home' >&2; fi\n" +
		"exec bash " + servers + "/student_sh/server.sh\n"
	subs := writeClass(t, filepath.Join(dir, "class"), map[string]string{"mallory": attack}, nil)
	cmd := exec.Command(bin, "grade-class", "--out", out, "--format", "json", subs)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LAB_RECORD_KEY_FILE=" + key}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lab grade-class as uid %d: %v\nstderr:\n%s", nobody, err, stderr.String())
	}
	if _, err := os.Lstat(filepath.Join(out, "forged.txt")); err == nil {
		t.Error("the student's program wrote in the results folder")
	}
	if _, err := os.Lstat(filepath.Join(home, "planted")); err == nil {
		t.Error("the student's program wrote in the grader's home")
	}
	if _, err := os.Stat(key); err != nil {
		t.Errorf("no record key was made at %s: %v", key, err)
	}
	report, err := os.ReadFile(filepath.Join(out, "students", "mallory", "json.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, said := range []string{"attack: could not write in the results", "attack: could not read the record key", "attack: could not write in the home"} {
		if !strings.Contains(string(report), said) {
			t.Errorf("mallory's transcript lacks %q", said)
		}
	}
	if !strings.Contains(stdout.String()+stderr.String(), "mallory: 21/21") {
		t.Errorf("mallory did not grade 21/21:\n%s\n%s", stdout.String(), stderr.String())
	}
}
