package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/internal/testkit/gradekit"
)

// SIGTERM while students are mid-grade, with one core kept busy: the one
// graded before it keeps its result, each other student is not-graded
// (never ungradable), and stderr, grades.csv and summary.md give the same
// counts and names.
func TestGradeClassStopIsExactUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class")
	}
	dir, bin, servers := labForClass(t)
	testkit.BusyCore(t)
	// Each submission holds its own copy of the bash test server, as a
	// student's would: the sandbox shows a program nothing else of /tmp.
	server, err := os.ReadFile(filepath.Join(servers, "student_sh", "server.sh"))
	if err != nil {
		t.Fatal(err)
	}
	good := "#!/bin/sh\nexec bash \"$(dirname \"$0\")/server.sh\"\n"
	hang := "#!/bin/sh\nexec bash \"$(dirname \"$0\")/server.sh\" --mistake hang\n"
	// With two at a time: ann and bob start; once ann is graded, cat takes
	// its place; dan waits for a place that never frees before the signal.
	subs := writeClass(t, filepath.Join(dir, "class"), map[string]string{"ann": good, "bob": hang, "cat": hang, "dan": good},
		map[string][]byte{"server.sh": server})
	out := filepath.Join(dir, "results")
	// Deadlines × 5: bob's and cat's runs last minutes, however slow ann's
	// is on a loaded machine (a correct server never waits for a deadline).
	p := startClassProc(t, bin, "grade-class", "--out", out, "--time-scale", "5", "--jobs", "2", subs)
	p.readUntil(func(line string) bool { return strings.Contains(line, "[1/4] ann") })
	// generous under load; bob's deadlines alone take longer
	err = p.endWith(t, syscall.SIGTERM, 60*time.Second)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit: %v, want status 2", err)
	}
	checkStoppedAfterAnn(t, out, p.log.String())
}

// checkStoppedAfterAnn checks the results folder out and the stderr log of
// a class stopped once ann alone was graded: grades.csv, stderr and
// summary.md count ann graded and name bob, cat and dan not graded, who
// have no report folder.
func checkStoppedAfterAnn(t *testing.T, out, log string) {
	t.Helper()
	m := gradekit.FullMarks(t, 1)
	grades, err := os.ReadFile(filepath.Join(out, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("student,score,max_score,status,failed,flags\nann,%d,%d,graded,,\n"+
		"bob,,%d,not-graded,,grading-stopped\ncat,,%d,not-graded,,grading-stopped\ndan,,%d,not-graded,,grading-stopped\n", m, m, m, m, m)
	if string(grades) != want {
		t.Errorf("grades.csv:\n%s\nwant:\n%s", grades, want)
	}
	if w := "1 of 4 submissions graded"; !strings.Contains(log, w) || !strings.Contains(log, "3 not graded (bob, cat, dan)") {
		t.Errorf("stderr does not count 1 graded and 3 not graded (bob, cat, dan):\n%s", log)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "before 3 submissions were graded: bob, cat, dan.") {
		t.Errorf("summary.md does not count and name the 3 not graded:\n%s", summary)
	}
	for _, name := range []string{"bob", "cat", "dan"} {
		if _, err := os.Stat(filepath.Join(out, "students", name)); err == nil {
			t.Errorf("%s, not graded, has a report folder", name)
		}
	}
}
