package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/internal/testkit"
)

// ttyBuffer is stderr as a terminal for tests: it says it is one.
type ttyBuffer struct{ testkit.Buffer }

func (*ttyBuffer) IsTerminal() bool { return true }

// gradeWith runs lab grade in-process against the reference server with
// stderr and the environment given, and returns the exit status and stdout.
func gradeWith(t *testing.T, stderr interface{ Write([]byte) (int, error) }, vars map[string]string, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: stderr, getenv: func(k string) string { return vars[k] }}
	args = append(append([]string{"grade", "--lesson", "1"}, args...), append([]string{"--"}, selfLab("serve", "reader")...)...)
	code := dispatch(context.Background(), e, args)
	return code, out.String()
}

// TestGradeProgressOnATerminal: on a terminal lab grade shows each scenario
// in place on stderr and clears it before the report; the report's bytes
// are those of a run without progress, on stdout as in an --out file, and
// NO_COLOR leaves the colour codes out.
func TestGradeProgressOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: grades the reference server three times")
	}
	t.Parallel()
	var plain bytes.Buffer
	code, want := gradeWith(t, &plain, map[string]string{"TERM": "xterm"})
	if code != 0 || plain.Len() != 0 {
		t.Fatalf("without a terminal: exit %d, stderr %q", code, plain.String())
	}
	tty := &ttyBuffer{}
	code, got := gradeWith(t, tty, map[string]string{"TERM": "xterm"})
	if code != 0 || unconfirmed(got) != unconfirmed(want) {
		t.Errorf("with progress: exit %d, report\n%s\nwant the same bytes as without\n%s", code, got, want)
	}
	shown := tty.String()
	if !strings.HasPrefix(shown, "\r\x1b[2Klab grade: \x1b[1mscenario 1/") || !strings.HasSuffix(shown, "\r\x1b[2K") ||
		!strings.Contains(shown, "\x1b[22m, may wait \x1b[36m") || strings.Contains(shown, "\n") {
		t.Errorf("the terminal's stderr is not a live line, cleared at the end: %q", shown)
	}
	if strings.Contains(got, "\x1b") || strings.Contains(got, "may wait") {
		t.Errorf("progress in the report: %q", got)
	}

	noColor := &ttyBuffer{}
	outFile := filepath.Join(t.TempDir(), "report.txt")
	code, got = gradeWith(t, noColor, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, "--out", outFile)
	if code != 0 || got != "" {
		t.Errorf("--out: exit %d, stdout %q", code, got)
	}
	if file, err := os.ReadFile(outFile); err != nil || unconfirmed(string(file)) != unconfirmed(want) {
		t.Errorf("--out file (%v):\n%s\nwant the report without progress\n%s", err, file, want)
	}
	shown = noColor.String()
	if !strings.HasPrefix(shown, "\r\x1b[2Klab grade: scenario 1/") || !strings.HasSuffix(shown, "\r\x1b[2K") ||
		strings.Contains(strings.ReplaceAll(shown, "\r\x1b[2K", ""), "\x1b") {
		t.Errorf("NO_COLOR: stderr %q, want the live line without colour codes", shown)
	}
}

// unconfirmed is a report without its "Confirmed:" line: on a busy
// machine a correct server may miss a deadline and pass when graded again
// with longer ones, which one of three runs of the same server says and
// the others need not.
func unconfirmed(report string) string {
	var keep []string
	for _, line := range strings.SplitAfter(report, "\n") {
		if !strings.HasPrefix(line, "Confirmed: ") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// TestGradePipedStderrHasNoProgress: lab grade, a process of its own whose
// stderr is a pipe, prints no progress at all, whatever TERM says.
func TestGradePipedStderrHasNoProgress(t *testing.T) {
	t.Parallel()
	args := append([]string{"grade", "--lesson", "1", "--"}, selfLab("serve", "reader")...)
	cmd := exec.Command(selfLab()[2], args...)
	cmd.Env = append(os.Environ(), "LAB_TEST_MAIN=1", "TERM=xterm-256color")
	cmd.Env = slicesWithout(cmd.Env, "NO_COLOR=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lab grade: %v\nstderr:\n%s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr, a pipe, got %q; want nothing", stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "Lesson 1: score 21/21.") {
		t.Errorf("stdout is not the report: %q", stdout.String())
	}
}

// slicesWithout drops the variables of env that start with prefix.
func slicesWithout(env []string, prefix string) []string {
	var out []string
	for _, v := range env {
		if !strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}
