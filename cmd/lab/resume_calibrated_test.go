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

// recordScale reads the time scale a student's record.json says it was
// graded under.
func recordScale(t *testing.T, out, name string) float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "students", name, "record.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		With struct {
			TimeScale float64 `json:"time_scale"`
		} `json:"graded_with"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s's record: %v", name, err)
	}
	return r.With.TimeScale
}

// A run that calibrated its deadlines records the scale it used, and
// --resume-from, without --time-scale, grades under that scale and reuses
// what it may, saying for each other student why it was graded again. A
// different --time-scale reuses nothing, and says so.
func TestResumeCalibrated(t *testing.T) {
	t.Parallel() // its own lab, class and folders; it waits on deadlines, mostly
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class three times")
	}
	dir, bin, servers := labForClass(t)
	subs := smallClass(t, dir, servers)
	first := filepath.Join(dir, "first")
	if code, _, errOut := runLab(t, bin, "grade-class", "--out", first, subs); code != 0 {
		t.Fatalf("grade-class: exit %d\n%s", code, errOut)
	}
	scale := checkCalibratedScale(t, first)

	// ben's files change; cleo could not be graded: both are graded again.
	run := filepath.Join(subs, "ben", "run")
	old, _ := os.ReadFile(run)
	if err := os.WriteFile(run, append(old, "# edited after the first run\n"...), 0o755); err != nil {
		t.Fatal(err)
	}
	resumed := filepath.Join(dir, "resumed")
	code, _, errOut := runLab(t, bin, "grade-class", "--resume-from", first, "--out", resumed, subs)
	if code != 0 {
		t.Fatalf("grade-class --resume-from: exit %d\n%s", code, errOut)
	}
	checkResumedUnderScale(t, first, resumed, errOut, scale)

	// Another scale reuses nothing, and says why for every student.
	other := scale + 1
	again := filepath.Join(dir, "again")
	code, _, errOut = runLab(t, bin, "grade-class", "--time-scale", fmt.Sprint(other), "--resume-from", resumed, "--out", again, subs)
	if code != 0 {
		t.Fatalf("grade-class --time-scale %g --resume-from: exit %d\n%s", other, code, errOut)
	}
	want := []string{
		fmt.Sprintf("lab grade-class: none of the earlier results in %s is reused: 3 were graded with deadlines × %g, not the × %g asked for "+
			"(leave out --time-scale to reuse them under their own scale)\n", resumed, scale, other),
		fmt.Sprintf("lab grade-class: 0 of 3 results reused from %s\n", resumed),
	}
	for _, name := range []string{"ann", "ben", "cleo"} {
		want = append(want, fmt.Sprintf("lab grade-class: %s: graded again, not reused: it was graded with deadlines × %g, not the × %g of this run\n", name, scale, other))
	}
	for _, line := range want {
		if !strings.Contains(errOut, line) {
			t.Errorf("stderr lacks %q:\n%s", line, errOut)
		}
	}
	if got := recordScale(t, again, "ann"); got != other {
		t.Errorf("ann's new record has time_scale %g, want %g", got, other)
	}
}

// checkCalibratedScale checks that the calibrated run into first recorded
// the scale it calibrated and used, in class.json and in every student's
// record, and returns it.
func checkCalibratedScale(t *testing.T, first string) float64 {
	t.Helper()
	var whole struct {
		Class struct {
			TimeScale float64 `json:"TimeScale"`
		} `json:"class"`
	}
	data, err := os.ReadFile(filepath.Join(first, "class.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &whole); err != nil {
		t.Fatalf("class.json: %v", err)
	}
	scale := recordScale(t, first, "ann")
	if scale < 1 || scale != whole.Class.TimeScale {
		t.Fatalf("a calibrated run recorded time_scale %g, want the scale it calibrated and used (class.json: %g)", scale, whole.Class.TimeScale)
	}
	for _, name := range []string{"ben", "cleo"} {
		if got := recordScale(t, first, name); got != scale {
			t.Errorf("%s's record has time_scale %g, ann's %g", name, got, scale)
		}
	}
	return scale
}

// checkResumedUnderScale checks the run resumed from first into resumed,
// whose stderr is errOut: under the earlier scale, without calibrating, it
// reused ann's record byte for byte, graded ben (changed) and cleo (could
// not start) again, saying why, and gave the same grades.csv.
func checkResumedUnderScale(t *testing.T, first, resumed, errOut string, scale float64) {
	t.Helper()
	for _, line := range []string{
		fmt.Sprintf("lab grade-class: 3 earlier results in %s may be reused, where the submission's files are unchanged (0 graded otherwise, not reused); its deadlines: × %g\n", first, scale),
		fmt.Sprintf("; deadlines × %g\n", scale),
		"lab grade-class: ben: graded again, not reused: its files changed since the earlier run\n",
		"lab grade-class: cleo: graded again, not reused: it could not be graded in the earlier run (outcome could-not-start), and such a result is never reused\n",
		fmt.Sprintf("lab grade-class: 1 of 3 results reused from %s\n", first),
	} {
		if !strings.Contains(errOut, line) {
			t.Errorf("the resumed run's stderr lacks %q:\n%s", line, errOut)
		}
	}
	if strings.Contains(errOut, "ann: graded again") || strings.Contains(errOut, "calibrating") {
		t.Errorf("the resumed run graded ann again, or calibrated:\n%s", errOut)
	}
	a1, _ := os.ReadFile(filepath.Join(first, "students", "ann", "record.json"))
	a2, _ := os.ReadFile(filepath.Join(resumed, "students", "ann", "record.json"))
	if len(a1) == 0 || !bytes.Equal(a1, a2) {
		t.Error("ann's record was not reused byte for byte")
	}
	if got := recordScale(t, resumed, "ben"); got != scale {
		t.Errorf("ben, graded again, has time_scale %g, want the earlier run's %g", got, scale)
	}
	g1, _ := os.ReadFile(filepath.Join(first, "grades.csv"))
	g2, _ := os.ReadFile(filepath.Join(resumed, "grades.csv"))
	if len(g1) == 0 || !bytes.Equal(g1, g2) {
		t.Errorf("grades.csv of the resumed run:\n%s\nwant:\n%s", g2, g1)
	}
}
