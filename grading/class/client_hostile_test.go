//go:build unix

package class_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
)

// hostileClient builds the hostile lesson-3 client (grading/testdata/
// clients/hostile), static, so that it runs in the container sandbox's
// image too.
var hostileClient = sync.OnceValues(func() (string, error) {
	return testkit.GoBuildStatic(labDir, "hostile-client", "../testdata/clients/hostile")
})

// readClientHostile parses the table of grading/testdata/clients/
// EXPECTED.md.
func readClientHostile(t *testing.T) map[string]hostileRow {
	t.Helper()
	f, err := os.Open(filepath.Join(testdata(t), "clients", "EXPECTED.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]hostileRow{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 7 {
			continue
		}
		c := cells[1:6]
		for i := range c {
			c[i] = strings.TrimSpace(c[i])
		}
		if !strings.HasPrefix(c[0], "client-") {
			continue
		}
		rows[c[0]] = hostileRow{outcome: c[1], score: c[2], failed: cellList(c[3]), flags: cellList(c[4])}
	}
	if len(rows) != 8 {
		t.Fatalf("clients/EXPECTED.md: %d client rows read, want 8; has its table changed shape?", len(rows))
	}
	return rows
}

// clientHostileClass makes the class of clients/EXPECTED.md: each hostile
// client with the correct student client beside it (which some attacks
// run after theirs), the correct client alone, a run script that execs
// the relay copy of the rig's folder, and a submission that ships the lab
// binary and runs its client.
func clientHostileClass(t *testing.T) string {
	t.Helper()
	read := func(build func() (string, error)) []byte {
		exe, err := build()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	student, hostile, lab := read(studentClient), read(hostileClient), read(labBinary)
	attack := func(name string) string {
		return "#!/bin/sh\nexec \"$(dirname \"$0\")/hostile\" -attack " + name + " \"$@\"\n"
	}
	folders := map[string]map[string][]byte{
		"client-good":           {"client": student, "run": []byte("#!/bin/sh\nexec \"$(dirname \"$0\")/client\" \"$@\"\n")},
		"client-flood":          {"hostile": hostile, "run": []byte(attack("flood"))},
		"client-sockets":        {"hostile": hostile, "client": student, "run": []byte(attack("sockets"))},
		"client-partial-stderr": {"hostile": hostile, "client": student, "run": []byte(attack("partial-stderr"))},
		"client-peer":           {"hostile": hostile, "client": student, "run": []byte(attack("peer"))},
		"client-kill-bridge":    {"hostile": hostile, "client": student, "run": []byte(attack("kill-bridge"))},
		"client-lab-copy":       {"run": []byte("#!/bin/sh\nexec \"$(dirname \"$(dirname \"$2\")\")/lab\" client \"$@\"\n")},
		"client-lab-ship":       {"lab": lab, "run": []byte("#!/bin/sh\nexec \"$(dirname \"$0\")/lab\" client \"$@\"\n")},
	}
	subs := filepath.Join(testkit.OpenDir(t), "submissions")
	for name, files := range folders {
		dir := filepath.Join(subs, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, data := range files {
			if err := os.WriteFile(filepath.Join(dir, f), data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return subs
}

// resetPeakRSS hands the memory earlier tests of the package left behind
// back to the system and restarts the process's peak (VmHWM) from what it
// holds now, so that peakRSS measures this test's grading, not the
// package's history (Linux: writing 5 to /proc/self/clear_refs).
func resetPeakRSS(t *testing.T) {
	t.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("the peak RSS could not be restarted (%v): it counts the earlier tests too", err)
	}
}

// peakRSS is the test process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM: %v", err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// checkClientHostile grades the hostile client class in sb as grade-class
// does (every format, each student's record.json, class.json) and checks
// each row of clients/EXPECTED.md, the grader's peak memory and the size
// of the results.
func checkClientHostile(t *testing.T, sb sandbox.Sandbox) {
	// The bound is on what the grader holds, not on how lazily the
	// collector gives memory back: a soft limit makes it collect as the
	// heap grows, so the peak is the live heap (and, under -race, its
	// shadow), as it would be for a grader given a memory limit.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	resetPeakRSS(t)
	rows := readClientHostile(t)
	subs := clientHostileClass(t)
	outDir := filepath.Join(testkit.OpenDir(t), "results")
	c := gradeClientHostileInto(t, sb, subs, outDir)
	// The container variant is the longest test of the package (21
	// minutes in CI beside the other packages): which students it waits
	// on is the evidence for cutting it.
	logSlowest(t, c.Students, len(c.Students))
	checkClientHostileRows(t, sb.Name(), c, rows)
	checkGraderPeakMemory(t)
	checkResultsSize(t, outDir, len(rows))
}

// gradeClientHostileInto grades the client class subs in sb into the new
// results folder outDir as grade-class does: each student's reports in
// every format and its record.json as its grading ends, then class.json
// and the gradebook.
func gradeClientHostileInto(t *testing.T, sb sandbox.Sandbox, subs, outDir string) *class.Class {
	t.Helper()
	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	with := class.GradedWith{LabVersion: "test", Lesson: 3, TimeScale: 2}
	opts := class.Options{Kinds: kinds.Builtin(), Lesson: 3, Sandbox: sb, Jobs: 4, TimeScale: 2, Reference: []string{bin, "client"}}
	if sb.Name() == "container" {
		opts.Root = filepath.Dir(subs)
	}
	return gradeInto(t, subs, outDir, opts, func(out *class.Out, s *class.Student) error {
		err := out.WriteStudent(s, report.Formats())
		if err == nil {
			err = out.WriteStudentRecord(s, with)
		}
		return err
	}, func(out *class.Out, c *class.Class) error {
		return out.WriteRecord(c, "test", class.Shard{})
	})
}

// checkClientHostileRows checks each student of the class against its row
// of clients/EXPECTED.md (outcome, score, failed checks, flags), and logs
// the class as graded, in the table's form.
func checkClientHostileRows(t *testing.T, sandboxName string, c *class.Class, rows map[string]hostileRow) {
	t.Helper()
	got := map[string]*class.Student{}
	for _, s := range c.Students {
		got[s.Name] = s
	}
	var table []string
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		w := rows[name]
		s := got[name]
		if s == nil {
			t.Errorf("%s: not graded", name)
			continue
		}
		r := s.Result
		score := tableScore(r)
		table = append(table, fmt.Sprintf("| %s | %s | %s | %s | %s |", name, r.Outcome.Kind, score, tableCell(r.Failed()), tableCell(s.Flags)))
		if string(r.Outcome.Kind) != w.outcome || score != w.score || !slices.Equal(r.Failed(), w.failed) || !slices.Equal(s.Flags, w.flags) {
			t.Errorf("%s sandbox, %s: outcome %s, score %s, failed %v, flags %v; want %s, %s, %v, %v\n(%s)",
				sandboxName, name, r.Outcome.Kind, score, r.Failed(), s.Flags, w.outcome, w.score, w.failed, w.flags, r.Outcome.Detail)
			for _, ch := range r.Checks {
				if ch.Status != "pass" {
					t.Logf("  %s %s: %.600s", ch.Status, ch.ID, ch.Message)
				}
			}
		}
	}
	t.Logf("%s sandbox, as graded:\n%s", sandboxName, strings.Join(table, "\n"))
}

// tableCell is a list as a cell of EXPECTED.md's table: "-" when empty.
func tableCell(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	return strings.Join(xs, ", ")
}

// checkGraderPeakMemory checks that the test process, the grader, peaked
// under its memory bound.
func checkGraderPeakMemory(t *testing.T) {
	t.Helper()
	// Without -race the class peaks near 175 MiB; the race detector's
	// shadow takes it to about 900 MiB. An unbounded grader took 4 GB
	// without it. The bound is 512 MiB, or 2 GiB under -race.
	peak, limit := peakRSS(t), int64(512<<20)
	if raceDetector {
		limit = 2 << 30
	}
	t.Logf("peak RSS of the test process: %d MiB (limit %d MiB)", peak>>20, limit>>20)
	if peak > limit {
		t.Errorf("the test process's peak RSS is %d MiB, over %d MiB", peak>>20, limit>>20)
	}
}

// checkResultsSize checks that the results in outDir of a class of n
// students stay bounded: no file over 8 MiB, no student's over 16 MiB, 6
// MiB a student in all.
func checkResultsSize(t *testing.T, outDir string, n int) {
	t.Helper()
	var total int64
	perStudent := map[string]int64{}
	err := filepath.WalkDir(outDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		if rel, err := filepath.Rel(filepath.Join(outDir, class.StudentsDir), p); err == nil && !strings.HasPrefix(rel, "..") {
			perStudent[strings.SplitN(rel, string(filepath.Separator), 2)[0]] += info.Size()
		}
		if info.Size() > 8<<20 {
			t.Errorf("%s is %d bytes, over 8 MiB", p, info.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("results: %d KiB in all; per student (KiB): %v", total>>10, kib(perStudent))
	if limit := int64(n) * 6 << 20; total > limit {
		t.Errorf("the results are %d MiB, over %d MiB (6 MiB a student)", total>>20, limit>>20)
	}
	for name, n := range perStudent {
		if n > 16<<20 {
			t.Errorf("%s's results are %d MiB, over 16 MiB", name, n>>20)
		}
	}
}

func kib(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[k] = v >> 10
	}
	return out
}

// The hostile client classes measure the grader's peak memory, so each is
// graded in a process of its own (testkit.RunAlone), beside the other
// tests.

func TestClientHostileProcessSandbox(t *testing.T) {
	hostileNeeds(t, "grading the hostile client class takes minutes")
	if testkit.RunAlone(t) {
		checkClientHostile(t, processSandbox(t))
	}
}

func TestClientHostileContainerSandbox(t *testing.T) {
	if testkit.RunAlone(t) {
		checkClientHostile(t, containerSandbox(t))
	}
}
