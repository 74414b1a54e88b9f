package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcplab/mcplab/grading"
)

// TestResumeAfterKill kills a grade-class run (SIGKILL) once four students
// are done, resumes it into a new folder with --resume-from, and checks the
// grades.csv is the one a whole run gives, byte for byte; the finished
// students are reused but for one whose files changed in between, which is
// graded again.
func TestResumeAfterKill(t *testing.T) {
	t.Parallel() // its own lab, class and folders; it waits on deadlines, mostly
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class three times")
	}
	dir, bin, servers := labForClass(t)
	subs := shardClass(t, dir, servers)
	whole := filepath.Join(dir, "whole")
	if code, _, errOut := runLab(t, bin, "grade-class", "--time-scale", "3", "--out", whole, subs); code != 0 {
		t.Fatalf("grade-class: exit %d\n%s", code, errOut)
	}
	killed := filepath.Join(dir, "killed")
	done := killAfterFour(t, bin, killed, subs)
	// One finished student's files change before the resumed run.
	changed := done[0]
	run := filepath.Join(subs, changed, "run")
	if _, err := os.Stat(run); err == nil {
		data, _ := os.ReadFile(run)
		if err := os.WriteFile(run, append(data, []byte("# edited after the first run\n")...), 0o755); err != nil {
			t.Fatal(err)
		}
	} else if err := os.WriteFile(filepath.Join(subs, changed, "notes.md"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	resumed := filepath.Join(dir, "resumed")
	code, _, errOut := runLab(t, bin, "grade-class", "--time-scale", "3", "--resume-from", killed, "--out", resumed, subs)
	if code != 0 {
		t.Fatalf("grade-class --resume-from: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, fmt.Sprintf("%s in %s may be reused", grading.CountOf(len(done), "earlier result", "earlier results"), killed)) {
		t.Errorf("the resumed run does not say it found the %d earlier results:\n%s", len(done), errOut)
	}
	want, _ := os.ReadFile(filepath.Join(whole, "grades.csv"))
	got, _ := os.ReadFile(filepath.Join(resumed, "grades.csv"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("resumed grades.csv:\n%s\nwant (one run):\n%s", got, want)
	}
	checkReusedRecords(t, killed, resumed, errOut, done)
	// The earlier folder is left as it was, and cannot be the new one.
	if code, _, errOut := runLab(t, bin, "grade-class", "--time-scale", "3", "--resume-from", killed, "--out", killed, subs); code != exitCannot || !strings.Contains(errOut, "must be a new folder") {
		t.Errorf("--resume-from the --out folder: exit %d, %q", code, errOut)
	}
}

// killAfterFour grades the class subs one at a time into killed and kills
// the run (SIGKILL) once stderr says four students are done. It returns
// the students whose record.json the run left, at least three.
func killAfterFour(t *testing.T, bin, killed, subs string) []string {
	t.Helper()
	p := startClassProc(t, bin, "grade-class", "--time-scale", "3", "--jobs", "1", "--out", killed, subs)
	var done []string
	p.readUntil(func(line string) bool {
		if strings.Contains(line, "] ") && strings.HasPrefix(line, "lab grade-class: [") {
			name, _, _ := strings.Cut(strings.SplitN(line, "] ", 2)[1], ":")
			done = append(done, name)
		}
		return len(done) == 4
	})
	_ = p.endWith(t, syscall.SIGKILL, 60*time.Second)
	if len(done) != 4 {
		t.Fatalf("the run ended before four students were done:\n%s", p.log.String())
	}
	// A student's line comes before its files are written: the first three
	// are surely on disk, the fourth may be.
	records, _ := filepath.Glob(filepath.Join(killed, "students", "*", "record.json"))
	if len(records) < 3 {
		t.Fatalf("the killed run left %d records, want at least 3", len(records))
	}
	done = done[:0]
	for _, r := range records {
		done = append(done, filepath.Base(filepath.Dir(r)))
	}
	return done
}

// checkReusedRecords checks the records of the students done in the
// killed run against the resumed run's, whose stderr is errOut: the
// reused ones are the killed run's, to the millisecond; the first
// student's, whose files changed, is new, and so is an ungradable one's
// (never reused). Stderr names each student graded again.
func checkReusedRecords(t *testing.T, killed, resumed, errOut string, done []string) {
	t.Helper()
	for i, name := range done {
		old, _ := os.ReadFile(filepath.Join(killed, "students", name, "record.json"))
		now, _ := os.ReadFile(filepath.Join(resumed, "students", name, "record.json"))
		if len(old) == 0 || len(now) == 0 {
			t.Fatalf("%s has no record.json in the killed or the resumed run", name)
		}
		var rec struct {
			Student struct {
				Result struct {
					Gradable bool `json:"gradable"`
				}
			} `json:"student"`
		}
		if err := json.Unmarshal(old, &rec); err != nil {
			t.Fatalf("%s's record: %v", name, err)
		}
		wantReused := i != 0 && rec.Student.Result.Gradable
		again := strings.Contains(errOut, "lab grade-class: "+name+": graded again, not reused: ")
		if again == wantReused {
			t.Errorf("%s: stderr says graded again = %v, want %v (its files changed: %v, gradable: %v)", name, again, !wantReused, i == 0, rec.Student.Result.Gradable)
		}
		if wantReused && !bytes.Equal(old, now) {
			t.Errorf("%s: reused, but its record is not the earlier one byte for byte", name)
		}
	}
	if changedLine := "lab grade-class: " + done[0] + ": graded again, not reused: "; !strings.Contains(errOut, changedLine) {
		t.Errorf("stderr does not name %s, whose files changed, as graded again:\n%s", done[0], errOut)
	}
}
