package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
)

// TestAssignmentLessonDir hands out a lesson made of data only, from its
// folder (--lesson-dir): the kit holds the folder's own starter, the run
// script and README of a server lesson, a copy of the lesson's grading
// files in lesson/ (the lab CI installs has no lesson 99), and CI files
// and a README that grade with it. A language the folder has no starter
// in, and a --lesson the folder is not, are refused before anything is
// written.
func TestAssignmentLessonDir(t *testing.T) {
	tmp := t.TempDir()
	lesson := filepath.Join(tmp, "lesson")
	if err := os.CopyFS(lesson, os.DirFS(filepath.Join("testdata", "lessons", "99-ping-by-data"))); err != nil {
		t.Fatal(err)
	}
	starter := map[string]string{"server.py": "# TODO: answer each ping\n", "README.md": "# Lesson 99's starter\n"}
	for name, text := range starter {
		p := filepath.Join(lesson, "starter", "python", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(tmp, "kit")
	code, stdout, errOut := lab(t, "assignment", "--lesson", "99", "--lesson-dir", lesson, "--lang", "python", "--lab-version", "v0.9.1", out)
	want := "lab assignment: lesson 99 (Ping and wait, from data alone), python starter, grading with lab v0.9.1, written to " + out + "\n" +
		"lab assignment: CI grades with the copy of the lesson's files in lesson/, which the student can change: record the marks of lab grade-class --lesson-dir " + lesson + "\n"
	if code != exitOK || stdout != "" || errOut != want {
		t.Fatalf("lab assignment --lesson-dir: exit %d, stdout %q, stderr %q; want exit 0 and %q", code, stdout, errOut, want)
	}
	files, names := readKit(t, out)
	if got, want := strings.Join(names, " "), ".github/workflows/grade.yml .gitlab-ci.yml README.md STARTER.md lesson/grading/01-requests.txtar lesson/grading/02-not-json.txtar lesson/grading/checks.txtar lesson/lesson.txt lesson/scenario.txtar run server.py"; got != want {
		t.Errorf("the kit holds %s, want %s", got, want)
	}
	for name, want := range map[string]string{
		"server.py":  starter["server.py"],
		"STARTER.md": starter["README.md"],
		"run":        "#!/bin/sh\n# Start the server on stdio.\nexec python3 \"$(dirname \"$0\")/server.py\"\n",
	} {
		if files[name] != want {
			t.Errorf("%s = %q, want %q", name, files[name], want)
		}
	}
	for name, want := range map[string]string{
		"README.md":                   "# Lesson 99: Ping and wait, from data alone (python)\n\nYour server for lesson 99 of mcplab.",
		".github/workflows/grade.yml": "# Grades every push with mcplab's grader: lesson 99 (Ping and wait, from data alone), python starter.\n",
		".gitlab-ci.yml":              "# Grades every push with mcplab's grader: lesson 99 (Ping and wait, from data alone), python starter.\n",
	} {
		if !strings.HasPrefix(files[name], want) {
			t.Errorf("%s begins %q, want %q", name, files[name][:min(len(files[name]), len(want))], want)
		}
	}
	for name, want := range map[string]string{
		"README.md":                   "lab grade --lesson 99 --lesson-dir lesson -- ./run\n```\n\n`run` starts your server on stdio, the way the grader starts it. The grade lists",
		".github/workflows/grade.yml": `lab grade --lesson "$LAB_LESSON" --lesson-dir lesson --time-scale "$LAB_TIME_SCALE" --format github -- ./run` + "\n",
		".gitlab-ci.yml":              `lab grade --lesson "$LAB_LESSON" --lesson-dir lesson --time-scale "$LAB_TIME_SCALE" --format junit --out report.xml -- ./run'` + "\n",
	} {
		if !strings.Contains(files[name], want) {
			t.Errorf("%s does not grade with the kit's lesson folder (%q):\n%s", name, want, files[name])
		}
	}
	if !strings.Contains(files[".github/workflows/grade.yml"], "LAB_LESSON: \"99\"\n") {
		t.Errorf("the workflow does not grade lesson 99:\n%s", files[".github/workflows/grade.yml"])
	}
	for _, name := range []string{"lesson.txt", "scenario.txtar", "grading/checks.txtar", "grading/01-requests.txtar", "grading/02-not-json.txtar"} {
		orig, err := os.ReadFile(filepath.Join(lesson, filepath.FromSlash(name)))
		if err != nil || files["lesson/"+name] != string(orig) {
			t.Errorf("lesson/%s is not the lesson's file (%v)", name, err)
		}
	}
	copied, err := kinds.LoadLesson(99, os.DirFS(filepath.Join(out, "lesson")))
	if err != nil || len(copied.Checks()) == 0 {
		t.Errorf("the kit's lesson folder does not load as lesson 99: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lesson-dir", lesson, "--lesson", "99", "--lang", "go"}, "lab assignment: lesson 99 (Ping and wait, from data alone) has no starter in \"go\" (it has: python)\n"},
		{[]string{"--lesson-dir", lesson, "--lesson", "98", "--lang", "python"}, "lab assignment: the lesson folder is lesson 99, not lesson 98 (its lesson.txt says so): pass --lesson 99\nRun \"lab help assignment\" for usage.\n"},
		{[]string{"--lesson-dir", filepath.Join(lesson, "grading"), "--lang", "python"}, "lab assignment: -lesson-dir " + filepath.Join(lesson, "grading") + " has no lesson.txt: lab assignment hands out a lesson folder with a manifest of its own (leave -lesson-dir out to hand out built-in lesson 1)\nRun \"lab help assignment\" for usage.\n"},
	} {
		refused := filepath.Join(tmp, "refused")
		args := append(append([]string{"assignment", "--lab-version", "v0.9.1"}, c.args...), refused)
		if code, _, errOut := lab(t, args...); code != exitCannot || errOut != c.want {
			t.Errorf("lab %q: exit %d, stderr %q; want exit 2 and %q", args, code, errOut, c.want)
		}
		if _, err := os.Lstat(refused); err == nil {
			t.Errorf("lab %q left %s behind", args, refused)
		}
	}
}

// readKit reads every file of the kit in dir, by its slash path inside
// it, and lists their names, sorted.
func readKit(t *testing.T, dir string) (map[string]string, []string) {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return files, names
}
