package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunHTML: lab run --format html plays the lesson against the real
// reference server and writes one page with a mark per event, to stdout or
// to --out; a format lab run does not write, or --out without html, is a
// usage error that runs nothing.
func TestRunHTML(t *testing.T) {
	code, page, stderr := lab(t, append([]string{"run", "--format", "html", "--"}, selfLab("serve", "reader")...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The marks are counted against the page's own table of the run's
	// events: a second run (the text format) may see one event more or
	// less (two chunks read at once, a log line cut by the stop), so the
	// run the page draws is the one it is held to.
	marks := len(regexp.MustCompile(`<g class="mark `).FindAllString(page, -1))
	events := len(regexp.MustCompile(`<tr id="ev-`).FindAllString(page, -1))
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "<title>Lesson 1: lab run, scenario ") || marks == 0 || marks != events {
		t.Errorf("the page has %d marks and %d rows in its table of events; want one page with a mark per event:\n%.400s", marks, events, page)
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "Outcome:") {
		t.Errorf("the run page holds a script or a grade")
	}

	out := filepath.Join(t.TempDir(), "run.html")
	code, stdout, stderr := lab(t, append([]string{"run", "--format", "html", "--out", out, "--"}, selfLab("serve", "reader")...)...)
	data, err := os.ReadFile(out)
	if code != 0 || stdout != "" || err != nil || !strings.HasPrefix(string(data), "<!DOCTYPE html>") || !strings.Contains(stderr, "wrote "+out) {
		t.Errorf("--out: exit %d, stdout %q, file %v, stderr %q", code, stdout, err, stderr)
	}

	for _, args := range [][]string{{"run", "--format", "pdf"}, {"run", "--out", out}, {"run", "--format", "html", "--out", filepath.Join(t.TempDir(), "no", "such", "x.html")}} {
		code, stdout, stderr := lab(t, args...)
		if code != 2 || stdout != "" || stderr == "" {
			t.Errorf("lab %v: exit %d, stdout %q, stderr %q; want exit 2 and a reason", args, code, stdout, stderr)
		}
	}
}
