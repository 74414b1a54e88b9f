package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
)

func TestGradeClassUsageErrorsExit2(t *testing.T) {
	subs := t.TempDir()
	for _, args := range [][]string{
		{"grade-class"},
		{"grade-class", subs},
		{"grade-class", "--out", t.TempDir()},
		{"grade-class", "--out", t.TempDir(), subs, subs},
		{"grade-class", "--out", t.TempDir(), "--format", "json,html", subs},
		{"grade-class", "--out", t.TempDir(), "--sandbox", "vm", subs},
		{"grade-class", "--out", t.TempDir(), "--jobs", "-1", subs},
		{"grade-class", "--out", t.TempDir(), "--time-scale", "-1", subs},
		{"grade-class", "--out", t.TempDir(), filepath.Join(subs, "missing")},
		{"grade-class", "--out", t.TempDir(), subs}, // no submission folders in it
	} {
		code, stdout, stderr := lab(t, args...)
		if code != 2 {
			t.Errorf("lab %v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if stdout != "" {
			t.Errorf("lab %v wrote to stdout: %q", args, stdout)
		}
		if stderr == "" {
			t.Errorf("lab %v said nothing on stderr", args)
		}
	}
}

// labForClass builds the lab into a fresh folder the sandbox users may
// pass through, and returns the folder, the binary and the test servers'
// folder.
func labForClass(t *testing.T) (dir, bin, servers string) {
	t.Helper()
	dir = testkit.OpenDir(t)
	bin, err := testkit.GoBuild(dir, "lab", ".")
	if err != nil {
		t.Fatal(err)
	}
	// A copy inside the class's own folder, not the checkout's: the
	// sandbox shows a program the folder above the submissions, and a
	// checkout under /tmp or in a 0700 home is out of its sight.
	fixtures, err := filepath.Abs(filepath.Join("..", "..", "grading", "testdata", "servers"))
	if err != nil {
		t.Fatal(err)
	}
	servers = filepath.Join(dir, "servers")
	testkit.CopyTree(t, fixtures, servers)
	return dir, bin, servers
}

// smallClass writes into dir/class the class of three TestGradeClass
// grades: ann runs the correct bash server, ben the Python one that
// prints a banner, and cleo has no run script. It returns the
// submissions folder.
func smallClass(t *testing.T, dir, servers string) string {
	t.Helper()
	return writeClass(t, filepath.Join(dir, "class"), map[string]string{
		"ann":  "#!/bin/sh\nexec bash " + servers + "/student_sh/server.sh\n",
		"ben":  "#!/bin/sh\nexec python3 " + servers + "/student_py/server.py --mistake banner\n",
		"cleo": "",
	}, nil)
}

// TestGradeClass builds the lab and grades a small class with it, end to
// end: calibration, the process sandbox (the lab re-executed as its
// launcher), the reports, the gradebook and the summary.
func TestGradeClass(t *testing.T) {
	t.Parallel() // its own lab, class and folders; calibration sizes the deadlines to the load
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class")
	}
	dir, bin, servers := labForClass(t)
	subs := smallClass(t, dir, servers)
	out := filepath.Join(dir, "results")
	cmd := exec.Command(bin, "grade-class", "--out", out, "--format", "json,junit,github", subs)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lab grade-class: %v\nstderr:\n%s", err, stderr.String())
	}

	grades, err := os.ReadFile(filepath.Join(out, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "student,score,max_score,status,failed,flags\nann,21,21,graded,,\nben,19,21,graded,stdout.messages-only,\ncleo,,21,ungradable,,\n"
	if string(grades) != want {
		t.Errorf("grades.csv:\n%s\nwant:\n%s", grades, want)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(summary) || !strings.HasPrefix(stdout.String(), "# Lesson 1: class summary\n") {
		t.Errorf("stdout is not the summary:\n%s", stdout.String())
	}
	for _, f := range []string{"students/ann/json.json", "students/ann/junit.xml", "students/ann/github.txt", "students/ann/github-summary.md", "students/cleo/json.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	for _, line := range []string{"[1/3]", "[3/3]", "ben: 19/21 protocol-violation", "cleo: could not grade: could-not-start"} {
		if !strings.Contains(stderr.String(), line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr.String())
		}
	}
}

// SIGTERM ends grade-class within seconds, even with a submission that
// would hang for the whole of its deadlines, and keeps what was graded:
// the gradebook and the summary say the class is incomplete.
func TestGradeClassStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class")
	}
	dir, bin, servers := labForClass(t)
	subs := writeClass(t, filepath.Join(dir, "class"), map[string]string{
		"ann": "#!/bin/sh\nexec bash " + servers + "/student_sh/server.sh\n",
		"zed": "#!/bin/sh\nexec bash " + servers + "/student_sh/server.sh --mistake hang\n",
	}, nil)
	out := filepath.Join(dir, "results")
	p := startClassProc(t, bin, "grade-class", "--out", out, "--time-scale", "1", "--jobs", "2", subs)
	// Once ann is graded, zed is the one left, hanging for its deadlines.
	p.readUntil(func(line string) bool { return strings.Contains(line, "[1/2] ann") })
	sent := time.Now()
	// Generous for a loaded machine, and still far less than the 25 s and
	// more zed's deadlines take.
	err := p.endWith(t, syscall.SIGTERM, 20*time.Second)
	t.Logf("grade-class ended %v after SIGTERM", time.Since(sent).Round(time.Millisecond))
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit: %v, want status 2", err)
	}
	grades, err := os.ReadFile(filepath.Join(out, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "student,score,max_score,status,failed,flags\nann,21,21,graded,,\nzed,,21,not-graded,,grading-stopped\n"
	if string(grades) != want {
		t.Errorf("grades.csv:\n%s\nwant:\n%s", grades, want)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(summary), "**Incomplete:**") {
		t.Errorf("summary.md does not say the class is incomplete (%v):\n%s", err, summary)
	}
	if _, err := os.Stat(filepath.Join(out, "students", "ann", "json.json")); err != nil {
		t.Errorf("ann's report: %v", err)
	}
}
