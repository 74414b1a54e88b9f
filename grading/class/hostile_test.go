//go:build unix

package class_test

import (
	"encoding/csv"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/internal/testkit"
	"github.com/mcplab/mcplab/lab/event"
)

// hostileNames are folder names a student may choose to attack the
// gradebook and the results folder; each holds a correct server.
var hostileNames = []string{
	`=HYPERLINK("evil.example","click")`, "+SUM(1,2)", "@cmd", "-2+3", "\tTAB", "esc\x1b[31mred", "cr\rname",
	"grades.csv", "summary.md", class.StudentsDir,
}

// hostileIPCKey is the key of hostile-ipc-writer's System V objects.
const hostileIPCKey = 0x4d43504c

// hostileRow is a row of the hostile table of EXPECTED.md.
type hostileRow struct {
	outcome, score string
	failed, flags  []string
}

// readHostile parses the table of hostile submissions of EXPECTED.md.
func readHostile(t *testing.T) map[string]hostileRow {
	t.Helper()
	rows := map[string]hostileRow{}
	for _, c := range expectedRows(t, 6) {
		if strings.HasPrefix(c[0], "hostile-") {
			rows[c[0]] = hostileRow{outcome: c[1], score: c[2], failed: cellList(c[3]), flags: cellList(c[4])}
		}
	}
	if len(rows) < 8 {
		t.Fatalf("EXPECTED.md: only %d hostile rows read; has its table changed shape?", len(rows))
	}
	return rows
}

// hostileClass makes a class of every hostile submission, adding what git
// cannot hold (a .git folder, a FIFO, a sparse file, the lab binary, the
// port of a listener), and the correct bash server under each of
// hostileNames. It returns the submissions folder and a count of the
// connections the listener took.
func hostileClass(t *testing.T, rows map[string]hostileRow) (string, *atomic.Int64) {
	t.Helper()
	var names []string
	for n := range rows {
		names = append(names, n)
	}
	files := copyOf(t, names...)
	good := copyOf(t, "sh-good")["sh-good/run"]
	for _, n := range hostileNames {
		files[n+"/run"] = good
	}
	subs := classOf(t, files)
	at := func(p ...string) string { return filepath.Join(append([]string{subs}, p...)...) }

	bin, err := labBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := sandbox.CopyFile(bin, at("hostile-lab-copy", "lab"), 0o755); err != nil {
		t.Fatal(err)
	}

	port, conns := testkit.CountConnections(t)
	if err := os.WriteFile(at("hostile-network", "port"), []byte(strconv.Itoa(port)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(at("hostile-git-zero", ".git", "refs", "heads"), 0o755))
	must(os.WriteFile(at("hostile-git-zero", ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	must(os.Symlink("/dev/zero", at("hostile-git-zero", ".git", "refs", "heads", "main")))
	must(os.Symlink("/dev/zero", at("hostile-git-zero", ".git", "packed-refs")))
	must(os.Mkdir(at("hostile-git-fifo", ".git"), 0o755))
	must(syscall.Mkfifo(at("hostile-git-fifo", ".git", "HEAD"), 0o644))
	must(syscall.Mkfifo(at("hostile-git-fifo", "pipe"), 0o644))
	big, err := os.Create(at("hostile-unidentified", "big.bin"))
	must(err)
	must(big.Truncate(600 << 20))
	must(big.Close())
	return subs, conns
}

// checkHostile grades the hostile class in sb as lab grade-class does, and
// checks that it held: results only inside a fresh results folder, a row
// for every student, the copies flagged, a gradebook safe in a
// spreadsheet, nothing of a student left on the machine.
func checkHostile(t *testing.T, sb sandbox.Sandbox) {
	rows := readHostile(t)
	subs, conns := hostileClass(t, rows)
	base := testkit.OpenDir(t)
	victim := checkOutRefusesPlanted(t, base)
	outDir := filepath.Join(base, "results")
	work := testkit.OpenDir(t)
	opts := class.Options{Kinds: kinds.Builtin(), Sandbox: sb, Jobs: 6, TimeScale: 2, Reference: reference(t), WorkDir: work}
	if sb.Name() == "container" {
		opts.Root = filepath.Dir(subs)
		opts.Share = []string{filepath.Join(testdata(t), "servers")}
	}
	c := gradeHostileInto(t, subs, outDir, opts)
	checkHostileVerdicts(t, sb.Name(), c, rows)
	checkResultsContained(t, victim, outDir, len(c.Students))
	checkGradesCSVSafe(t, outDir, len(c.Students))
	if conns.Load() != 0 {
		t.Errorf("a student reached a listener on 127.0.0.1 %d time(s)", conns.Load())
	}
	checkNothingLeft(t, sb, opts.Jobs, work)
}

// checkOutRefusesPlanted checks that a results folder that is a link, or a
// folder the grader did not make, in base is refused, and returns the
// folder the link points to, in which nothing may be written.
func checkOutRefusesPlanted(t *testing.T, base string) (victim string) {
	t.Helper()
	victim = filepath.Join(testkit.OpenDir(t), "victim")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(base, "linked")); err != nil {
		t.Fatal(err)
	}
	if _, err := class.CreateOut(filepath.Join(base, "linked")); err == nil {
		t.Error("CreateOut took a results folder that is a link")
	}
	if err := os.Mkdir(filepath.Join(base, "planted"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := class.CreateOut(filepath.Join(base, "planted")); err == nil {
		t.Error("CreateOut took a folder it did not make")
	}
	return victim
}

// gradeHostileInto grades the class subs with opts into the new results
// folder outDir, as lab grade-class does: each student's JSON and Markdown
// reports as its grading ends, then the gradebook.
func gradeHostileInto(t *testing.T, subs, outDir string, opts class.Options) *class.Class {
	t.Helper()
	formats := []string{report.FormatJSON, report.FormatMarkdown}
	return gradeInto(t, subs, outDir, opts, func(out *class.Out, s *class.Student) error {
		return out.WriteStudent(s, formats)
	}, nil)
}

// checkHostileVerdicts checks that every student of the hostile class has
// the result EXPECTED.md gives it (rows), and the students of hostileNames,
// correct servers, full marks.
func checkHostileVerdicts(t *testing.T, sandboxName string, c *class.Class, rows map[string]hostileRow) {
	t.Helper()
	got := map[string]*class.Student{}
	for _, s := range c.Students {
		got[s.Name] = s
	}
	if len(c.Students) != len(rows)+len(hostileNames) || c.Incomplete {
		t.Errorf("%d students graded (incomplete %v), want %d", len(c.Students), c.Incomplete, len(rows)+len(hostileNames))
	}
	check := func(name string, w hostileRow) {
		s := got[name]
		if s == nil {
			t.Errorf("%q: not graded", name)
			return
		}
		r := s.Result
		score := tableScore(r)
		anyScore, anyFailed := w.score == "any", slices.Equal(w.failed, []string{"any"})
		if string(r.Outcome.Kind) != w.outcome || !anyScore && score != w.score ||
			!anyFailed && !slices.Equal(r.Failed(), w.failed) || !flagsAsExpected(sandboxName, s.Flags, w.flags) {
			t.Errorf("%s sandbox, %q: outcome %s, score %s, failed %v, flags %v; want %s, %s, %v, %v\n(%s)",
				sandboxName, name, r.Outcome.Kind, score, r.Failed(), s.Flags, w.outcome, w.score, w.failed, w.flags, r.Outcome.Detail)
			for _, c := range r.Checks {
				if c.Status == grading.StatusFail {
					t.Logf("%s sandbox, %q: %s failed: %s", sandboxName, name, c.ID, c.Message)
				}
			}
		}
	}
	for name, w := range rows {
		check(name, w)
	}
	for _, name := range hostileNames {
		check(name, hostileRow{outcome: "passed", score: "21/21"})
	}
	if s := got["hostile-lab-copy"]; s != nil && !strings.Contains(s.Result.Outcome.Detail, "copy of the lab binary") {
		t.Errorf("hostile-lab-copy: the outcome does not tell the teacher: %s", s.Result.Outcome.Detail)
	}
	if s := got["hostile-newline-flood"]; s != nil {
		checkFloodCounted(t, sandboxName, s.Result)
	}
}

// checkFloodCounted checks that the newline flood's lines past what a run
// keeps were counted and said, not kept: the transcript holds at most the
// kept lines of each stream, and a note says how many more came.
func checkFloodCounted(t *testing.T, sandboxName string, r *grading.Result) {
	t.Helper()
	said, blank := false, 0
	for _, e := range r.Transcript {
		said = said || e.Kind == event.Note && strings.Contains(e.Text, "more lines (") && strings.Contains(e.Text, "on stdout were counted, not kept")
		if e.Text == "" && (e.Kind == event.Answer || e.Kind == event.Stderr) {
			blank++
		}
	}
	if !said {
		t.Errorf("%s sandbox, hostile-newline-flood: no transcript note says how many stdout lines were counted, not kept", sandboxName)
	}
	if blank > event.TranscriptEventsMax {
		t.Errorf("%s sandbox, hostile-newline-flood: %d blank lines in the transcript, more than it may hold", sandboxName, blank)
	}
	if msg := checkMessage(r, "stdout.messages-only"); !strings.Contains(msg, "(counted, not kept)") {
		t.Errorf("%s sandbox, hostile-newline-flood: stdout.messages-only does not count the lines not kept: %s", sandboxName, msg)
	}
}

// checkMessage is the message of r's check id, or "".
func checkMessage(r *grading.Result, id string) string {
	for _, c := range r.Checks {
		if c.ID == id {
			return c.Message
		}
	}
	return ""
}

// checkResultsContained checks that the grader wrote only inside its own
// results folder outDir, plain files and folders with a folder for each
// of the n students graded, and nothing through the link to victim or a
// link a student planted.
func checkResultsContained(t *testing.T, victim, outDir string, n int) {
	t.Helper()
	if entries, _ := os.ReadDir(victim); len(entries) > 0 {
		t.Errorf("something was written through the linked results folder: %v", entries)
	}
	if _, err := os.Lstat("/tmp/hostile-proc-pwned"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("/tmp/hostile-proc-pwned exists (%v): a link planted by a student was followed", err)
	}
	var students []string
	err := filepath.WalkDir(outDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 || !(d.IsDir() || d.Type().IsRegular()) {
			t.Errorf("%s in the results is not a plain file or folder", p)
		}
		if filepath.Dir(p) == filepath.Join(outDir, class.StudentsDir) {
			students = append(students, d.Name())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(students) != n {
		t.Errorf("%d student folders in the results, want %d", len(students), n)
	}
}

// checkGradesCSVSafe checks that the grades.csv of outDir has a row for
// each of the n students graded, and no cell a spreadsheet would run or
// that holds a control character.
func checkGradesCSVSafe(t *testing.T, outDir string, n int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(outDir, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatalf("grades.csv does not parse: %v", err)
	}
	if len(records) != n+1 {
		t.Errorf("grades.csv has %d rows, want a header and %d", len(records), n)
	}
	for _, rec := range records {
		for _, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("grades.csv: a cell a spreadsheet would run: %q", cell)
			}
			if strings.ContainsFunc(cell, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Errorf("grades.csv: a control character in %q", cell)
			}
		}
	}
}

// checkNothingLeft checks that nothing of a student is left once the
// class is graded in sb with jobs slots: no process, no file in the
// scratch folders, no System V IPC object, no mount, no workspace in work.
func checkNothingLeft(t *testing.T, sb sandbox.Sandbox, jobs int, work string) {
	t.Helper()
	if p, ok := sb.(*sandbox.Process); ok {
		for slot := range jobs {
			checkSlotLeftNothing(t, p, slot)
		}
	}
	// hostile-ipc-writer's objects stayed in its own IPC namespace, in
	// either sandbox.
	if objs, err := sandbox.SysVObjects(); err != nil {
		t.Error(err)
	} else {
		for _, o := range objs {
			if o.Key == hostileIPCKey {
				t.Errorf("hostile-ipc-writer's %s (key %#x, uid %d) outlived the class", o.Kind, o.Key, o.UID)
			}
		}
	}
	if matches, _ := filepath.Glob("/run/lock/hostile-*"); len(matches) > 0 {
		t.Errorf("left behind: %v", matches)
	}
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		matches, _ := filepath.Glob(filepath.Join(d, "hostile-*"))
		if len(matches) > 0 {
			t.Errorf("left behind: %v", matches)
		}
	}
	mounts, _ := os.ReadFile("/proc/self/mounts")
	if strings.Contains(string(mounts), work) {
		t.Errorf("a workspace is still mounted under %s", work)
	}
	if entries, _ := os.ReadDir(work); len(entries) > 0 {
		t.Errorf("the workspaces' folder was left: %v", entries)
	}
}

// checkSlotLeftNothing checks that the user of the process sandbox's slot
// runs no process and owns no scratch file or System V IPC object.
func checkSlotLeftNothing(t *testing.T, p *sandbox.Process, slot int) {
	t.Helper()
	uid, _, err := p.User(slot)
	if err != nil || uid < 0 {
		return
	}
	if left := processesOf(uid); len(left) > 0 {
		t.Errorf("uid %d still runs %v", uid, left)
	}
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm", "/run/lock"} {
		if left := ownedBy(d, uid); len(left) > 0 {
			t.Errorf("uid %d left %v", uid, left)
		}
	}
	if left, err := sandbox.SysVObjectsOf(uid); err != nil || len(left) > 0 {
		t.Errorf("uid %d left System V IPC objects %+v (%v)", uid, left, err)
	}
}

// processesOf lists the pids of uid's processes.
func processesOf(uid int) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		info, err := os.Stat(filepath.Join("/proc", e.Name()))
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// ownedBy lists the entries of dir that belong to uid.
func ownedBy(dir string, uid int) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		info, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

func TestHostileClassProcessSandbox(t *testing.T) {
	hostileNeeds(t, "grading the hostile class takes a while")
	t.Parallel()
	sb := processSandbox(t).(*sandbox.Process)
	sb.WorkspaceSize = 256 << 20
	checkHostile(t, sb)
}

func TestHostileClassContainerSandbox(t *testing.T) {
	sb := containerSandbox(t).(*sandbox.Container)
	t.Parallel()
	sb.WorkspaceSize = 256 << 20
	checkHostile(t, sb)
}

// flagsAsExpected compares a student's flags with EXPECTED.md's, in
// either sandbox: the transcript flag compares only what a server's
// behaviour decides (see sameTranscript), so it holds in a container too.
func flagsAsExpected(_ string, got, want []string) bool {
	return slices.Equal(got, want)
}
