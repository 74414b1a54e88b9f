package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/internal/testkit"
)

// shardClass writes a class of students whose runs each show one known
// verdict, and returns its folder.
func shardClass(t *testing.T, dir, servers string) string {
	t.Helper()
	py := "#!/bin/sh\nexec python3 " + servers + "/student_py/server.py"
	subs := writeClass(t, filepath.Join(dir, "class"), map[string]string{
		"ann":   "#!/bin/sh\nexec bash " + servers + "/student_sh/server.sh\n",
		"ben":   py + " --mistake banner\n",
		"cleo":  "",
		"dan":   py + "\n",
		"eve":   py + " --mistake stringify-ids\n",
		"fay":   py + " --mistake answers-notifications\n",
		"gus":   py + " --mistake chunk-as-line\n",
		"hana":  py + " --mistake crash-on-bad-json\n",
		"ivo":   "#!/bin/sh\nexit 3\n",
		"=SUM(": py + "\n",
	}, nil)
	if err := os.WriteFile(filepath.Join(subs, "notes.txt"), []byte("not a student\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return subs
}

func runLab(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("lab %s: %v", strings.Join(args, " "), err)
	}
	return code, stdout.String(), stderr.String()
}

// listTree lists the files under dir, relative, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// editRecord copies the results folder src to dst and changes its record.
func editRecord(t *testing.T, src, dst string, edit func(r map[string]any)) {
	t.Helper()
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	p := filepath.Join(dst, class.RecordFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	edit(r)
	data, _ = json.Marshal(r)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestShardsMergeLikeOneRun grades a class in one run and in three shards,
// merges the shards, and checks the merged grades.csv is the one run's,
// byte for byte, with the same report tree; then that merge-grades refuses
// each kind of mismatch and leaves no output behind.
func TestShardsMergeLikeOneRun(t *testing.T) {
	t.Parallel() // its own lab, class and folders; it waits on deadlines, mostly
	if testing.Short() {
		t.Skip("-short: builds the lab and grades a class four times")
	}
	dir, bin, servers := labForClass(t)
	subs := shardClass(t, dir, servers)
	scale := "3"
	whole := filepath.Join(dir, "whole")
	if code, _, errOut := runLab(t, bin, "grade-class", "--time-scale", scale, "--format", "json,junit", "--out", whole, subs); code != 0 {
		t.Fatalf("grade-class: exit %d\n%s", code, errOut)
	}
	shards := gradeInShards(t, bin, dir, subs, scale)
	merged := filepath.Join(dir, "merged")
	code, stdout, errOut := runLab(t, bin, append([]string{"merge-grades", merged}, shards...)...)
	if code != 0 {
		t.Fatalf("merge-grades: exit %d\n%s", code, errOut)
	}
	checkMergedLikeWhole(t, whole, merged, stdout)
	checkMergeRefuses(t, bin, dir, subs, shards)
}

// gradeInShards grades the class of ten students subs in three shards,
// into dir/shard-K, and returns their folders; together they hold the ten.
// The shards are graded at the same time, as three CI jobs would: each
// mostly waits on its students.
func gradeInShards(t *testing.T, bin, dir, subs, scale string) []string {
	t.Helper()
	shards := make([]string, 3)
	held := make([]int, 3)
	testkit.Concurrently(t, 3, []string{"shard-1", "shard-2", "shard-3"}, func(t *testing.T, i int) {
		k := i + 1
		out := filepath.Join(dir, fmt.Sprintf("shard-%d", k))
		code, _, errOut := runLab(t, bin, "grade-class", "--shard", fmt.Sprintf("%d/3", k), "--time-scale", scale, "--format", "json,junit", "--out", out, subs)
		if code != 0 {
			t.Fatalf("grade-class --shard %d/3: exit %d\n%s", k, code, errOut)
		}
		rec, err := class.ReadRecord(out)
		if err != nil {
			t.Fatal(err)
		}
		held[i] = len(rec.Class.Students)
		shards[i] = out
	})
	if t.Failed() {
		t.FailNow()
	}
	if n := held[0] + held[1] + held[2]; n != 10 {
		t.Fatalf("the shards hold %d students, want 10", n)
	}
	return shards
}

// checkMergedLikeWhole checks the merged results folder against the one
// run's, whole: grades.csv and the class page byte for byte, the same
// report tree, and a summary (which merge-grades printed, stdout) the
// same past its line of timings and sandbox.
func checkMergedLikeWhole(t *testing.T, whole, merged, stdout string) {
	t.Helper()
	want, _ := os.ReadFile(filepath.Join(whole, "grades.csv"))
	got, _ := os.ReadFile(filepath.Join(merged, "grades.csv"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("merged grades.csv:\n%s\nwant (one run):\n%s", got, want)
	}
	wantIndex, _ := os.ReadFile(filepath.Join(whole, "index.html"))
	gotIndex, _ := os.ReadFile(filepath.Join(merged, "index.html"))
	if len(wantIndex) == 0 || !bytes.Equal(gotIndex, wantIndex) {
		t.Errorf("the merged class page index.html differs from one run's (%d and %d bytes)", len(gotIndex), len(wantIndex))
	}
	if w, g := listTree(t, filepath.Join(whole, "students")), listTree(t, filepath.Join(merged, "students")); strings.Join(w, "\n") != strings.Join(g, "\n") {
		t.Errorf("merged report tree:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	summary, _ := os.ReadFile(filepath.Join(merged, "summary.md"))
	wholeSummary, _ := os.ReadFile(filepath.Join(whole, "summary.md"))
	// Past the line of timings and sandbox, the summaries are the same.
	_, wantTail, _ := strings.Cut(string(wholeSummary), "## Score distribution")
	_, gotTail, _ := strings.Cut(string(summary), "## Score distribution")
	if stdout != string(summary) || wantTail == "" || gotTail != wantTail || !strings.Contains(stdout, "Not submission folders, ignored: notes") {
		t.Errorf("merge-grades printed, or summary.md holds, not the class's summary:\n%s\nwant, from the score distribution on:\n%s", stdout, wantTail)
	}
}

// checkMergeRefuses checks that merge-grades refuses each kind of
// mismatch among the three shards (one missing or given twice, another
// scale, lab version or lesson, a shard stopped, shards that split the
// class differently, a folder that is no results, a student in two
// shards), exiting 2 and leaving no output behind.
func checkMergeRefuses(t *testing.T, bin, dir, subs string, shards []string) {
	t.Helper()
	bad := filepath.Join(dir, "bad")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	edited := func(name string, edit func(r map[string]any)) string {
		p := filepath.Join(bad, name)
		editRecord(t, shards[1], p, edit)
		return p
	}
	cls := func(r map[string]any) map[string]any { return r["class"].(map[string]any) }
	for _, c := range []struct {
		name string
		dirs []string
		want string
	}{
		{"missing", []string{shards[0], shards[2]}, "shard 2/3 missing"},
		{"twice", []string{shards[0], shards[1], shards[1], shards[2]}, "shard 2/3 is given twice"},
		{"scale", []string{shards[0], edited("scale", func(r map[string]any) { cls(r)["TimeScale"] = 5.0 }), shards[2]}, "same --time-scale"},
		{"version", []string{shards[0], edited("version", func(r map[string]any) { r["lab_version"] = "v9.9.9" }), shards[2]}, "by lab v9.9.9"},
		{"lesson", []string{shards[0], edited("lesson", func(r map[string]any) { cls(r)["Lesson"] = 2.0 }), shards[2]}, "shards of different lessons"},
		{"stopped", []string{shards[0], edited("stopped", func(r map[string]any) { cls(r)["Incomplete"] = true }), shards[2]}, "was stopped before"},
		{"ways", []string{shards[0], shards[1], shards[2], edited("extra", func(r map[string]any) { r["shard"] = map[string]any{"k": 3, "n": 4} }),
			edited("four", func(r map[string]any) { r["shard"] = map[string]any{"k": 4, "n": 4}; cls(r)["Students"] = []any{} })}, "split the class the same number of ways"},
		{"not-results", []string{shards[0], subs}, "has no class.json"},
	} {
		out := filepath.Join(dir, "refused-"+c.name)
		code, _, errOut := runLab(t, bin, append([]string{"merge-grades", out}, c.dirs...)...)
		if code != exitCannot || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: merge-grades exit %d, %q; want exit 2 saying %q", c.name, code, errOut, c.want)
		}
		if _, err := os.Lstat(out); err == nil {
			t.Errorf("%s: a refused merge left %s behind", c.name, out)
		}
	}
	// A student in two shards: shard 2's record given again as shard 3.
	dup := edited("dup", func(r map[string]any) { r["shard"] = map[string]any{"k": 3, "n": 3} })
	rec, err := class.ReadRecord(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Class.Students) > 0 {
		code, _, errOut := runLab(t, bin, "merge-grades", filepath.Join(dir, "refused-dup"), shards[0], shards[1], dup)
		if code != exitCannot || !strings.Contains(errOut, "is in both") {
			t.Errorf("a student in two shards: exit %d, %q", code, errOut)
		}
	}
}

func TestShardUsageErrors(t *testing.T) {
	subs := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/3", "--time-scale", "2"}, "want K/N"},
		{[]string{"--shard", "4/3", "--time-scale", "2"}, "want K/N"},
		{[]string{"--shard", "two", "--time-scale", "2"}, "want K/N"},
		{[]string{"--shard", "1/3"}, "-shard needs -time-scale"},
		{[]string{"--shard-index", "0", "--time-scale", "2"}, "-shard-index and -shard-count go together"},
		{[]string{"--shard-count", "3", "--time-scale", "2"}, "-shard-index and -shard-count go together"},
		{[]string{"--shard", "1/3", "--shard-index", "0", "--shard-count", "3", "--time-scale", "2"}, "not both"},
		{[]string{"--shard-index", "3", "--shard-count", "3", "--time-scale", "2"}, "want a whole number from 0 to 2"},
		{[]string{"--shard-index", "$(JOB_COMPLETION_INDEX)", "--shard-count", "3", "--time-scale", "2"}, "a variable nobody expanded"},
		{[]string{"--shard-index", "0", "--shard-count", "3"}, "needs -time-scale"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		code, _, errOut := lab(t, append(append([]string{"grade-class", "--out", out}, c.args...), subs)...)
		if code != exitCannot || !strings.Contains(errOut, c.want) {
			t.Errorf("grade-class %q: exit %d, %q; want exit 2 saying %q", c.args, code, errOut, c.want)
		}
		if _, err := os.Lstat(out); err == nil {
			t.Errorf("grade-class %q made %s", c.args, out)
		}
	}
	if code, _, errOut := lab(t, "merge-grades", "out"); code != exitCannot || !strings.Contains(errOut, "name the folder to write and the shards") {
		t.Errorf("merge-grades with no shards: exit %d, %q", code, errOut)
	}
}

func TestShardStable(t *testing.T) {
	names := []string{"ann", "ben", "cleo", "dan", "eve", "fay", "gus", "hana", "ivo", "jo"}
	owner := func(names []string, n int) map[string]int {
		m := map[string]int{}
		for k := 1; k <= n; k++ {
			for _, f := range (class.Shard{K: k, N: n}).Filter(folders(names)) {
				if _, dup := m[f.Name]; dup {
					t.Fatalf("%s is in two shards", f.Name)
				}
				m[f.Name] = k
			}
		}
		return m
	}
	before := owner(names, 4)
	after := owner(append(names, "zed", "amy"), 4)
	for _, n := range names {
		if before[n] == 0 || after[n] != before[n] {
			t.Errorf("%s: shard %d, then %d once two students joined", n, before[n], after[n])
		}
	}
}

func folders(names []string) []class.Folder {
	out := make([]class.Folder, len(names))
	for i, n := range names {
		out[i] = class.Folder{Name: n}
	}
	return out
}
