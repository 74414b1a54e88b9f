package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
)

// dataLesson is one of the data-only lessons of testdata/lessons (issue 20,
// "Proof"): a folder of data (a manifest, a scenario for lab run, grading
// scenarios and a check catalogue) with no Go of its own, taken through lab
// run, lab grade and lab grade-class with --lesson N --lesson-dir FOLDER.
type dataLesson struct {
	dir, number string
	// checks are the catalogue's ids, in its order: none of them is a
	// built-in lesson's.
	checks string
}

// The server lesson, played against lesson 1's reference server.
func dataServerLesson() dataLesson {
	return dataLesson{"testdata/lessons/99-ping-by-data", "99",
		"pong.empty-result wait.reports-ms unknown.refused garbage.parse-error id.unchanged replies.one-each notes.unanswered stdout.clean eof.exit-zero"}
}

// The server lesson with data of its own, played against lesson 2's
// reference server given the folder (lab serve --lesson-dir).
func dataDeskLesson() dataLesson {
	return dataLesson{"testdata/lessons/97-helpdesk-by-data", "97",
		"desk.own-ticket desk.foreign-ticket desk.customer id.unchanged stdout.clean eof.exit-zero"}
}

// The client lesson, on lesson 3's servers.
func dataClientLesson() dataLesson {
	return dataLesson{"testdata/lessons/98-tools-by-data", "98",
		"every-page prefixed right-server meta-placement fresh-ids cursor-echo post-headers own-names clean-exit"}
}

// verdict sums up a lab grade --format json report in one line: the score,
// the outcome, and the checks that failed and were skipped, in check order.
// It also asserts that the report lists the catalogue's checks, in order.
func verdict(t *testing.T, l dataLesson, report string) string {
	t.Helper()
	var r struct {
		Score    int                   `json:"score"`
		MaxScore int                   `json:"max_score"`
		Outcome  grading.Outcome       `json:"outcome"`
		Checks   []grading.CheckResult `json:"checks"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, report)
	}
	var ids, failed, skipped []string
	for _, c := range r.Checks {
		ids = append(ids, c.ID)
		switch c.Status {
		case grading.StatusFail:
			failed = append(failed, c.ID)
		case grading.StatusSkip:
			skipped = append(skipped, c.ID)
		}
	}
	if got := strings.Join(ids, " "); got != l.checks {
		t.Errorf("the report lists the checks %q, want the catalogue's %q", got, l.checks)
	}
	return fmt.Sprintf("%d/%d; %s; failed: %s; skipped: %s", r.Score, r.MaxScore, r.Outcome.Kind, strings.Join(failed, ","), strings.Join(skipped, ","))
}

// gradeData runs lab grade on a data lesson against COMMAND and checks its
// exit status and verdict.
func gradeData(t *testing.T, bin string, l dataLesson, wantCode int, want string, command ...string) {
	t.Helper()
	args := append([]string{"grade", "--lesson", l.number, "--lesson-dir", l.dir, "--format", "json", "--"}, command...)
	code, out, stderr := runLab(t, bin, args...)
	if code != wantCode {
		t.Errorf("lab grade %s -- %s: exit %d, want %d\nstderr: %s", l.dir, strings.Join(command, " "), code, wantCode, stderr)
	}
	if got := verdict(t, l, out); got != want {
		t.Errorf("lab grade %s -- %s:\n got %s\nwant %s", l.dir, strings.Join(command, " "), got, want)
	}
}

// dataClass writes a class of two students, each a folder with an
// executable run script (given its body) and the files copied into it, and
// returns the class's folder.
func dataClass(t *testing.T, dir string, students map[string]string, files map[string][]string) string {
	t.Helper()
	subs := filepath.Join(dir, "class")
	for name, run := range students {
		folder := filepath.Join(subs, name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, "run"), []byte("#!/bin/sh\n"+run+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files[name] {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(folder, filepath.Base(f)), data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return subs
}

// gradeClassData runs lab grade-class on a data lesson and compares the
// gradebook with want, byte for byte.
func gradeClassData(t *testing.T, bin string, l dataLesson, subs, want string) {
	t.Helper()
	out := filepath.Join(filepath.Dir(subs), "results")
	code, stdout, stderr := runLab(t, bin, "grade-class", "--lesson", l.number, "--lesson-dir", l.dir, "--out", out, subs)
	if code != 0 {
		t.Fatalf("lab grade-class %s: exit %d\nstderr: %s", l.dir, code, stderr)
	}
	if !strings.HasPrefix(stdout, "# Lesson "+l.number+": class summary\n") {
		t.Errorf("lab grade-class %s: the summary does not name lesson %s:\n%s", l.dir, l.number, stdout)
	}
	grades, err := os.ReadFile(filepath.Join(out, "grades.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if string(grades) != want {
		// What each student's report says, to tell why.
		reports, _ := filepath.Glob(filepath.Join(out, "students", "*", "json.json"))
		var why []string
		for _, r := range reports {
			data, _ := os.ReadFile(r)
			var res struct {
				Outcome grading.Outcome `json:"outcome"`
			}
			_ = json.Unmarshal(data, &res)
			why = append(why, fmt.Sprintf("%s: %s: %s", filepath.Base(filepath.Dir(r)), res.Outcome.Kind, res.Outcome.Detail))
		}
		t.Errorf("lab grade-class %s: grades.csv:\n%s\nwant:\n%s\nthe reports say:\n%s", l.dir, grades, want, strings.Join(why, "\n"))
	}
}

// linesWith returns the lines of out that start with prefix, in order.
func linesWith(out, prefix string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			got = append(got, l)
		}
	}
	return got
}

// inOrder reports whether out holds each of want, one after the other.
func inOrder(out string, want ...string) bool {
	for _, w := range want {
		i := strings.Index(out, w)
		if i < 0 {
			return false
		}
		out = out[i+len(w):]
	}
	return true
}

// runDataHTML runs lab run --format html on a data lesson and checks that
// the page is the lesson's.
func runDataHTML(t *testing.T, bin string, l dataLesson) {
	t.Helper()
	code, page, stderr := runLab(t, bin, "run", "--lesson", l.number, "--lesson-dir", l.dir, "--format", "html")
	if code != 0 || !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, "<title>Lesson "+l.number+": lab run") {
		t.Errorf("lab run --format html %s: exit %d, want 0 and the lesson's page\nstderr: %s", l.dir, code, stderr)
	}
}

// TestDataLessons builds the lab and takes the data-only lessons through
// lab run, lab grade (the reference gets full marks, a known-bad peer
// exactly the failed checks its mistake breaks) and lab grade-class (the
// reference and the bad peer as a class of two).
func TestDataLessons(t *testing.T) {
	t.Parallel() // its own lab, classes and folders; it waits on deadlines, mostly
	if testing.Short() {
		t.Skip("-short: builds the lab and grades two classes")
	}
	dir, bin, servers := labForClass(t)
	t.Run("Server", func(t *testing.T) { testDataServerLesson(t, dir, bin, servers) })
	t.Run("ServerWithData", func(t *testing.T) { testDataDeskLesson(t, dir, bin) })
	t.Run("Client", func(t *testing.T) { testDataClientLesson(t, dir, bin) })
}

// testDataServerLesson takes lesson 99, a server lesson played against
// lesson 1's reference server, through the three commands. The bad peer is
// the test server that writes every id back as a string.
func testDataServerLesson(t *testing.T, dir, bin, servers string) {
	l := dataServerLesson()
	code, out, stderr := runLab(t, bin, "run", "--lesson", l.number, "--lesson-dir", l.dir)
	if code != 0 {
		t.Fatalf("lab run: exit %d\nstderr: %s", code, stderr)
	}
	// The sends are in the scenario's order; the answers may come in any
	// order, but all before stdin closes (a scenario waits for them).
	sends := strings.Join(linesWith(out, "-> "), "\n")
	wantSends := `-> {"jsonrpc":"2.0","id":1,"method":"ping"}
-> {"jsonrpc":"2.0","id":"two","method":"wait","params":{"ms":5}}
-> {"jsonrpc":"2.0","id":3,"method":"no/such/method"}
-> {"jsonrpc":"2.0","method":"notifications/hello"}`
	if sends != wantSends {
		t.Errorf("lab run sent:\n%s\nwant:\n%s", sends, wantSends)
	}
	before, _, closed := strings.Cut(out, "-- stdin closed\n")
	answers := linesWith(before, "<- ")
	sort.Strings(answers)
	wantAnswers := `<- {"jsonrpc":"2.0","id":"two","result":{"waited":5}}
<- {"jsonrpc":"2.0","id":1,"result":{}}
<- {"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: \"no/such/method\" (this server knows ping and wait)"}}`
	if !closed || strings.Join(answers, "\n") != wantAnswers || !inOrder(out, "-- stdin closed\n", "-- server exited with status 0\n") {
		t.Errorf("lab run: want the three answers before stdin closes, then the server's exit 0:\n%s", out)
	}

	runDataHTML(t, bin, l)
	gradeData(t, bin, l, 0, "11/11; passed; failed: ; skipped: ", bin, "serve", "reader")
	stringify := []string{"python3", filepath.Join(servers, "student_py", "server.py"), "--mistake", "stringify-ids"}
	gradeData(t, bin, l, 1, "9/11; wrong-answers; failed: id.unchanged; skipped: ", stringify...)

	// Each student ships what it runs: the reference a copy of the lab
	// (the sandbox shows a student nothing of the grader's own binary), so
	// the class flags it, and the bad peer the test server.
	subs := dataClass(t, filepath.Join(dir, "server"), map[string]string{
		"ref": `exec "$(dirname "$0")/lab" serve reader`,
		"bad": `exec python3 "$(dirname "$0")/server.py" --mistake stringify-ids`,
	}, map[string][]string{"ref": {bin}, "bad": {stringify[1]}})
	gradeClassData(t, bin, l, subs, "student,score,max_score,status,failed,flags\n"+
		"bad,9,11,graded,id.unchanged,\n"+
		"ref,11,11,graded,,contains-lab-binary;same-transcript-as-reference\n")
}

// testDataDeskLesson takes lesson 97, a server lesson whose reference is
// lesson 2's help desk serving the folder's own tickets and customers,
// through lab serve, lab run, lab grade and lab grade-class. The bad peer
// is the help desk with the built-in lesson's data: it fails exactly the
// three checks that look the folder's data up. grade-class calibrates
// against the reference (no time scale is given), which passes only when
// it is handed the folder too.
func testDataDeskLesson(t *testing.T, dir, bin string) {
	l := dataDeskLesson()
	code, out, stderr := runLab(t, bin, "run", "--lesson", l.number, "--lesson-dir", l.dir)
	if code != 0 || !strings.Contains(out, `"text":"Ticket 7001 (open, normal priority): Day passes expire at midnight instead of closing time`) ||
		!strings.Contains(out, `"text":"Customer C-202: Jonas Berg, Northline Rowing in Oslo`) {
		t.Errorf("lab run: exit %d, want 0 and the folder's ticket 7001 and customer C-202:\n%s\nstderr: %s", code, out, stderr)
	}
	gradeData(t, bin, l, 0, "7/7; passed; failed: ; skipped: ", bin, "serve", "--lesson-dir", l.dir, "helpdesk")
	gradeData(t, bin, l, 1, "3/7; wrong-answers; failed: desk.own-ticket,desk.foreign-ticket,desk.customer; skipped: ", bin, "serve", "helpdesk")

	subs := dataClass(t, filepath.Join(dir, "desk"), map[string]string{
		"ref": `exec "$(dirname "$0")/lab" serve --lesson-dir "$(dirname "$0")/desk" helpdesk`,
		"bad": `exec "$(dirname "$0")/lab" serve helpdesk`,
	}, map[string][]string{"ref": {bin}, "bad": {bin}})
	if err := os.CopyFS(filepath.Join(subs, "ref", "desk"), os.DirFS(l.dir)); err != nil {
		t.Fatal(err)
	}
	// The teacher's folder is private (0700), as a teacher's may well be:
	// as root, the sandbox's users cannot read it, so the calibrated
	// reference passes only with the copy the grader makes for it.
	private := l
	private.dir = filepath.Join(t.TempDir(), "desk")
	if err := os.CopyFS(private.dir, os.DirFS(l.dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	gradeClassData(t, bin, private, subs, "student,score,max_score,status,failed,flags\n"+
		"bad,3,7,graded,desk.own-ticket;desk.foreign-ticket;desk.customer,contains-lab-binary\n"+
		"ref,7,7,graded,,contains-lab-binary;same-transcript-as-reference\n")
}

// TestServeLessonDir: lab serve --lesson-dir serves only a folder whose
// manifest plays the server, and says why it will not otherwise.
func TestServeLessonDir(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--lesson-dir", dataDeskLesson().dir, "reader"}, "lab serve: --lesson-dir testdata/lessons/97-helpdesk-by-data: its lesson 97 does not play the server reader (its manifest names helpdesk)\n"},
		{[]string{"serve", "--lesson-dir", "testdata", "helpdesk"}, "lab serve: --lesson-dir testdata: reading the lesson's manifest: open lesson.txt: no such file or directory\n"},
	} {
		code, stdout, stderr := lab(t, tc.args...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("lab %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stdout, stderr, tc.want)
		}
	}
}

// testDataClientLesson takes lesson 98, a client lesson on lesson 3's
// servers, through the three commands. Its reference is the lab's own
// client, which its manifest names (client: host); the bad peer is the
// test client that reads only the first page of tools/list.
func testDataClientLesson(t *testing.T, dir, bin string) {
	l := dataClientLesson()
	student := filepath.Join(dir, "student")
	if out, err := exec.Command("go", "build", "-o", student, "../../grading/testdata/clients/student").CombinedOutput(); err != nil {
		t.Fatalf("go build the test client: %v\n%s", err, out)
	}
	code, out, stderr := runLab(t, bin, "run", "--lesson", l.number, "--lesson-dir", l.dir)
	if code != 0 {
		t.Fatalf("lab run: exit %d\nstderr: %s", code, stderr)
	}
	// Each command is answered before the next is given, and the answers
	// are the notes library's and the ticket system's own.
	var turns []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "you -> client  ") || strings.HasPrefix(l, "client -> you  ") {
			turns = append(turns, l)
		}
	}
	if len(turns) != 6 || !strings.HasPrefix(turns[1], `client -> you  {"tools":[{"name":"mcp__notes__search"`) ||
		turns[2] != `you -> client  {"command":"call_tool","name":"mcp__notes__search","arguments":{"query":"retry"}}` ||
		turns[3] != `client -> you  {"text":"1 note(s) mention \"retry\":\nretry-budget: Retry budget for the payment API","isError":false}` ||
		turns[5] != `client -> you  {"text":"T-104 (open): Nightly queue stalls; workers stop heartbeating","isError":false}` {
		t.Errorf("lab run: want three commands each answered in turn:\n%s", out)
	}
	// The client ends once its stdin closes; where the servers' ends are
	// shown among these lines depends on the machine's load.
	if !inOrder(out, turns[5]+"\n", "-- stdin closed\n", "-- client exited with status 0\n") {
		t.Errorf("lab run: want stdin closed after the last answer, then the client's exit 0:\n%s", out)
	}

	runDataHTML(t, bin, l)
	gradeData(t, bin, l, 0, "11/11; passed; failed: ; skipped: ", bin, "client", "host")
	gradeData(t, bin, l, 1, "8/11; wrong-answers; failed: every-page,cursor-echo; skipped: ", student, "-mistake", "first-page")

	subs := dataClass(t, filepath.Join(dir, "client"), map[string]string{
		"ref": `exec "$(dirname "$0")/lab" client host "$@"`,
		"bad": `exec "$(dirname "$0")/student" -mistake first-page "$@"`,
	}, map[string][]string{"ref": {bin}, "bad": {student}})
	gradeClassData(t, bin, l, subs, "student,score,max_score,status,failed,flags\n"+
		"bad,8,11,graded,every-page;cursor-echo,\n"+
		"ref,11,11,graded,,contains-lab-binary;same-transcript-as-reference\n")
}

// TestDataLessonWrongNumber: a lesson folder whose manifest gives another
// number than --lesson is refused by each command with a usage error that
// says which number the folder has.
func TestDataLessonWrongNumber(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--lesson", "7", "--lesson-dir", dataServerLesson().dir},
		{"grade", "--lesson", "7", "--lesson-dir", dataServerLesson().dir, "--", "true"},
		{"grade-class", "--lesson", "7", "--lesson-dir", dataClientLesson().dir, "--out", filepath.Join(t.TempDir(), "out"), t.TempDir()},
	} {
		code, stdout, stderr := lab(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "not lesson 7") {
			t.Errorf("lab %s: exit %d, stdout %q, stderr %q; want exit 2 and an error naming the folder's number", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
