package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Every usage error of grade-class is found before any grading starts:
// exit 2, the exact message on stderr, nothing on stdout, and no --out
// folder left behind (nor a foreign one touched).
func TestGradeClassUsageErrorsLeaveNothing(t *testing.T) {
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	subs := filepath.Join(base, "class")
	if err := os.MkdirAll(filepath.Join(subs, "ann"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(subs, "ann", "run"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(base, "empty")
	foreign := filepath.Join(base, "foreign")
	notResults := filepath.Join(base, "notresults")
	for _, d := range []string{empty, foreign, notResults} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "results")
	help := "\nRun \"lab help grade-class\" for usage.\n"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"sandbox", []string{"--sandbox", "bogus", "--out", out, subs},
			`lab grade-class: unknown sandbox "bogus"; the sandboxes are process and container` + help},
		{"empty class", []string{"--out", out, empty},
			"lab grade-class: " + empty + " holds no submission folders: give the folder that holds one folder per student" + help},
		{"format", []string{"--format", "json,pdf", "--out", out, subs},
			`lab grade-class: unknown format "pdf"; the formats are text, json, junit, prairielearn, gradescope, exercism, github, markdown, html` + help},
		{"no format", []string{"--format", ",", "--out", out, subs},
			"lab grade-class: -format names no format; give one or more of text, json, junit, prairielearn, gradescope, exercism, github, markdown, html, separated by commas" + help},
		{"missing folder", []string{"--out", out, filepath.Join(base, "missing")},
			"lab grade-class: " + filepath.Join(base, "missing") + " is not a folder of submissions" + help},
		{"lesson", []string{"--lesson", "99", "--out", out, subs}, ""},
		{"out in no folder", []string{"--out", filepath.Join(base, "no", "such", "r"), subs},
			"lab grade-class: -out " + filepath.Join(base, "no", "such", "r") + ": the folder " + filepath.Join(base, "no", "such") +
				" does not exist, so the results could not be written there (nothing was graded); make it first, or name a new folder in one that exists" + help},
		{"out foreign", []string{"--out", foreign, subs},
			"lab grade-class: -out " + foreign + " already exists and was not made by lab grade-class (it has no .mcplab-results), so the grader will not replace it " +
				"(nothing was graded): name a new folder, or remove it first" + help},
		{"out a file", []string{"--out", filepath.Join(foreign, "keep.txt"), subs},
			"lab grade-class: -out " + filepath.Join(foreign, "keep.txt") + " already exists and is not a folder the grader made (nothing was graded): name a new folder, or remove it first" + help},
		{"resume missing", []string{"--resume-from", filepath.Join(base, "gone"), "--out", out, subs},
			"lab grade-class: -resume-from: the earlier results " + filepath.Join(base, "gone") + " do not exist: name the --out folder of an earlier lab grade-class" + help},
		{"resume not results", []string{"--resume-from", notResults, "--out", out, subs},
			"lab grade-class: -resume-from: the earlier results " + notResults + " were not made by lab grade-class (the folder has no .mcplab-results): name the --out folder of an earlier run" + help},
		{"resume a file", []string{"--resume-from", filepath.Join(foreign, "keep.txt"), "--out", out, subs},
			"lab grade-class: -resume-from: the earlier results " + filepath.Join(foreign, "keep.txt") + " are not a folder: name the --out folder of an earlier lab grade-class" + help},
		{"resume into itself", []string{"--resume-from", out, "--out", out, subs},
			"lab grade-class: -out must be a new folder, not the -resume-from one: the earlier results are kept until the new run is done" + help},
		{"shard without scale", []string{"--shard", "1/2", "--out", out, subs},
			"lab grade-class: -shard needs -time-scale: shards calibrated apart would get different deadlines, and lab merge-grades refuses to merge them" + help},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lab(t, append([]string{"grade-class"}, tc.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr)
			}
			if stdout != "" {
				t.Errorf("wrote to stdout: %q", stdout)
			}
			if tc.want != "" && stderr != tc.want {
				t.Errorf("stderr:\n%q\nwant:\n%q", stderr, tc.want)
			}
			if tc.want == "" && stderr == "" {
				t.Error("said nothing on stderr")
			}
			if _, err := os.Lstat(out); err == nil {
				t.Errorf("left %s behind", out)
			}
			if data, err := os.ReadFile(filepath.Join(foreign, "keep.txt")); err != nil || string(data) != "mine\n" {
				t.Errorf("the foreign folder was touched: %q, %v", data, err)
			}
		})
	}
}
