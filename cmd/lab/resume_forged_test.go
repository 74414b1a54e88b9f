package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A record edited after the grader wrote it (ben's score raised to 999, as
// a student's program running as the grader's user could do) and one whose
// digest was taken off (ann's) are not reused by --resume-from: both are
// graded again, stderr says why for each, and the resumed gradebook is the
// first run's, not the forged one.
func TestResumeForgedRecord(t *testing.T) {
	t.Parallel() // its own lab, class and folders; it waits on deadlines, mostly
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class twice")
	}
	dir, bin, servers := labForClass(t)
	subs := smallClass(t, dir, servers)
	first := filepath.Join(dir, "first")
	if code, _, errOut := runLab(t, bin, "grade-class", "--time-scale", "3", "--out", first, subs); code != 0 {
		t.Fatalf("grade-class: exit %d\n%s", code, errOut)
	}
	want, err := os.ReadFile(filepath.Join(first, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	record := func(name string) string { return filepath.Join(first, "students", name, "record.json") }
	edit := func(name string, change func([]byte) []byte) {
		data, err := os.ReadFile(record(name))
		if err != nil {
			t.Fatal(err)
		}
		changed := change(data)
		if bytes.Equal(changed, data) {
			t.Fatalf("%s's record was not changed", name)
		}
		if err := os.WriteFile(record(name), changed, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("ben", func(b []byte) []byte {
		var r struct {
			Student struct {
				Result struct {
					Score int `json:"score"`
				}
			} `json:"student"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		return bytes.Replace(b, []byte(fmt.Sprintf(`"score":%d,`, r.Student.Result.Score)), []byte(`"score":999,`), 1)
	})
	edit("ann", func(b []byte) []byte {
		i := bytes.LastIndex(b, []byte(`,"digest":"`))
		if i < 0 {
			t.Fatalf("ann's record carries no digest: %s", b)
		}
		return append(b[:i:i], '}')
	})

	resumed := filepath.Join(dir, "resumed")
	code, _, errOut := runLab(t, bin, "grade-class", "--time-scale", "3", "--resume-from", first, "--out", resumed, subs)
	if code != 0 {
		t.Fatalf("grade-class --resume-from: exit %d\n%s", code, errOut)
	}
	for _, line := range []string{
		"lab grade-class: ann: graded again, not reused: its record carries no digest, so nothing shows it is as the grader wrote it\n",
		"lab grade-class: ben: graded again, not reused: its record was changed after the grader wrote it: its digest does not match what it holds\n",
		"lab grade-class: 0 of 3 results reused from " + first + "\n",
	} {
		if !strings.Contains(errOut, line) {
			t.Errorf("stderr lacks %q:\n%s", line, errOut)
		}
	}
	got, _ := os.ReadFile(filepath.Join(resumed, "grades.csv"))
	if !bytes.Equal(got, want) || bytes.Contains(got, []byte("999")) {
		t.Errorf("resumed grades.csv:\n%s\nwant (the first run's):\n%s", got, want)
	}
}
