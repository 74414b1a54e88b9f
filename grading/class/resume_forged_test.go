package class_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
)

// forgedLesson is the catalogue of the lesson the records below are of:
// three checks, 21 points in all.
var forgedLesson = []grading.Check{{ID: "a", Points: 8}, {ID: "b", Points: 11}, {ID: "c", Points: 2}}

var forgedWith = class.GradedWith{LabVersion: "v1", LabHash: "abc", Lesson: 1, TimeScale: 2}

// goodResult is a result the grader gives: 19 of 21, check c failed.
func goodResult(name string) *grading.Result {
	return &grading.Result{Lesson: 1, Gradable: true, Score: 19, MaxScore: 21,
		Outcome: grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: "1 check failed: c."},
		Checks: []grading.CheckResult{
			{ID: "a", Status: grading.StatusPass, Points: 8, MaxPoints: 8},
			{ID: "b", Status: grading.StatusPass, Points: 11, MaxPoints: 11},
			{ID: "c", Status: grading.StatusFail, Points: 0, MaxPoints: 2, Message: "It failed."},
		},
		Submission: &grading.Submission{Name: name, Hash: "h-" + name}}
}

// useKey points the record key at a new file of its own for the test.
func useKey(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys", "record-key")
	t.Setenv(class.RecordKeyEnv, path)
	return path
}

// writeRecords writes a results folder holding one record per student,
// each the result given, signed with the key in use, and returns it.
func writeRecords(t *testing.T, results map[string]*grading.Result) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "earlier")
	out, err := class.CreateOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range results {
		if err := out.WriteStudentRecord(&class.Student{Name: name, Result: res}, forgedWith); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func recordPath(dir, name string) string {
	return filepath.Join(dir, "students", name, class.StudentRecordFile)
}

// wantRegraded checks that the earlier result of each student named is not
// reused, for the reason given, word for word.
func wantRegraded(t *testing.T, e *class.Earlier, reasons map[string]string) {
	t.Helper()
	for name, want := range reasons {
		if s := e.Reuse(name, &grading.Submission{Hash: "h-" + name}); s != nil {
			t.Errorf("%s: its earlier result was reused", name)
		}
		if got := e.WhyNot(&class.Student{Name: name}); got != want {
			t.Errorf("%s: WhyNot = %q,\nwant %q", name, got, want)
		}
	}
}

// wantReused checks that the earlier result of the student name, 19 of
// 21, is reused.
func wantReused(t *testing.T, e *class.Earlier, name string) {
	t.Helper()
	s := e.Reuse(name, &grading.Submission{Hash: "h-" + name})
	if s == nil || !e.Reused(s) || s.Result.Score != 19 || s.Result.MaxScore != 21 {
		t.Errorf("%s: its untouched earlier result was not reused (%v)", name, s)
	}
}

// A record the grader signed but whose result no grading gives (a score
// its checks do not add up to, passed with a failed check, points over a
// check's maximum or for a failed check, a check the lesson lacks or one
// it has left out, an outcome naming other checks) is graded again, each
// with what is wrong with it; an untouched record beside them is reused.
func TestForgedResultsRegraded(t *testing.T) {
	useKey(t)
	forged := map[string]func(*grading.Result){
		"score": func(r *grading.Result) { r.Score = 999 },
		"passed": func(r *grading.Result) {
			r.Score, r.Outcome = 19, grading.Outcome{Kind: grading.OutcomePassed, Detail: "Every check passed."}
		},
		"over":    func(r *grading.Result) { r.Checks[0].Points, r.Score = 9, 20 },
		"failpts": func(r *grading.Result) { r.Checks[2].Points, r.Score = 2, 21 },
		"maxpts":  func(r *grading.Result) { r.MaxScore = 25 },
		"stranger": func(r *grading.Result) {
			r.Checks[2].ID = "z"
			r.Outcome.Detail = "1 check failed: z."
		},
		"lacking": func(r *grading.Result) {
			r.Checks, r.MaxScore = r.Checks[:2], 19
			r.Outcome = grading.Outcome{Kind: grading.OutcomePassed, Detail: "Every check passed."}
		},
		"worth": func(r *grading.Result) {
			r.Checks[1].Points, r.Checks[1].MaxPoints, r.Score, r.MaxScore = 30, 30, 38, 40
		},
		"detail": func(r *grading.Result) { r.Outcome.Detail = "1 check failed: a." },
		"nofail": func(r *grading.Result) {
			r.Checks[2].Status, r.Checks[2].Points, r.Score = grading.StatusPass, 2, 21
		},
		"lesson": func(r *grading.Result) { r.Lesson = 2 },
		"twice":  func(r *grading.Result) { r.Checks[1].ID = "a" },
	}
	results := map[string]*grading.Result{"ann": goodResult("ann")}
	for name, forge := range forged {
		r := goodResult(name)
		forge(r)
		results[name] = r
	}
	dir := writeRecords(t, results)

	e, err := class.LoadEarlierOf(dir, forgedWith, forgedLesson)
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() != 1 || e.Skipped != len(forged) {
		t.Errorf("%d reusable, %d skipped; want 1 and %d", e.Len(), e.Skipped, len(forged))
	}
	wantReused(t, e, "ann")
	wantRegraded(t, e, map[string]string{
		"score":    "its record says 999 points of 21, but its checks add up to 19",
		"passed":   "its record says passed, but it lists a failed check: c",
		"over":     "its record gives check a 9 points, but it is worth at most 8",
		"failpts":  "its record gives check c 2 points, but the check failed, and a failed check earns none",
		"maxpts":   "its record says 19 points of 25, but its checks are worth 21",
		"stranger": "its record lists a check z, which lesson 1 does not have",
		"lacking":  "its record lacks a check of lesson 1: c",
		"worth":    "its record says check b is worth 30 points, but lesson 1 gives it 11",
		"detail":   "its record's outcome does not name the checks that failed (c)",
		"nofail":   "its record says wrong answers, but no check failed",
		"lesson":   "its record holds a result of lesson 2, not of lesson 1",
		"twice":    "its record lists check a twice",
	})

	// Without the lesson's catalogue, the checks are held to each other
	// only: a record of other checks that add up is reused.
	e, err = class.LoadEarlier(dir, forgedWith)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ann", "stranger", "lacking", "worth"} {
		if s := e.Reuse(name, &grading.Submission{Hash: "h-" + name}); s == nil {
			t.Errorf("no catalogue: %s was not reused", name)
		}
	}
	wantRegraded(t, e, map[string]string{
		"score":  "its record says 999 points of 21, but its checks add up to 19",
		"passed": "its record says passed, but it lists a failed check: c",
	})
}

// editRecord rewrites the record of the student name in dir with edit.
func editRecord(t *testing.T, dir, name string, edit func([]byte) []byte) {
	t.Helper()
	p := recordPath(dir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, edit(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A record changed after the grader wrote it (its score raised, with or
// without its checks, by one byte), one whose digest was taken off or
// never made (an older lab's), one signed with another key, and one
// copied from another student's folder are graded again, each saying so;
// the untouched record beside them is reused.
func TestRecordDigestRegraded(t *testing.T) {
	useKey(t)
	names := []string{"ann", "raised", "allpass", "flipped", "stripped", "older", "other", "copied", "moved", "garbled"}
	results := map[string]*grading.Result{}
	for _, n := range names {
		results[n] = goodResult(n)
	}
	dir := writeRecords(t, results)

	editRecord(t, dir, "raised", func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"score":19`), []byte(`"score":21`), 1)
	})
	// Every part made consistent again, as a forger would: still refused.
	editRecord(t, dir, "allpass", func(b []byte) []byte {
		b = bytes.Replace(b, []byte(`"score":19`), []byte(`"score":21`), 1)
		b = bytes.Replace(b, []byte(`"status":"fail","points":0`), []byte(`"status":"pass","points":2`), 1)
		return bytes.Replace(b, []byte(`"kind":"wrong-answers","detail":"1 check failed: c."`), []byte(`"kind":"passed","detail":"Every check passed."`), 1)
	})
	editRecord(t, dir, "flipped", func(b []byte) []byte {
		i := bytes.LastIndex(b, []byte(`"digest":"`)) + len(`"digest":"`)
		if b[i] == '0' {
			b[i] = '1'
		} else {
			b[i] = '0'
		}
		return b
	})
	editRecord(t, dir, "stripped", func(b []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "digest")
		out, _ := json.Marshal(m)
		return out
	})
	editRecord(t, dir, "older", func(b []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["format"] = 1
		delete(m, "digest")
		delete(m, "key")
		out, _ := json.Marshal(m)
		return out
	})
	// The digest moved inside the record: not where the grader puts it.
	editRecord(t, dir, "moved", func(b []byte) []byte {
		i := bytes.LastIndex(b, []byte(`,"digest":"`))
		d := b[i : len(b)-1]
		return append(append([]byte(`{"format":2`+string(d)), b[len(`{"format":2`):i]...), '}')
	})
	editRecord(t, dir, "garbled", func(b []byte) []byte { return b[:len(b)/2] })
	// Ann's record, signed for ann, put in copied's folder.
	ben, err := os.ReadFile(recordPath(dir, "ann"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recordPath(dir, "copied"), ben, 0o644); err != nil {
		t.Fatal(err)
	}
	// A record signed with another key, in place of other's.
	mine := os.Getenv(class.RecordKeyEnv)
	useKey(t)
	elsewhere := writeRecords(t, map[string]*grading.Result{"other": goodResult("other")})
	t.Setenv(class.RecordKeyEnv, mine)
	theirs, err := os.ReadFile(recordPath(elsewhere, "other"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recordPath(dir, "other"), theirs, 0o644); err != nil {
		t.Fatal(err)
	}

	e, err := class.LoadEarlierOf(dir, forgedWith, forgedLesson)
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() != 1 || e.Skipped != len(names)-1 {
		t.Errorf("%d reusable, %d skipped; want 1 and %d", e.Len(), e.Skipped, len(names)-1)
	}
	wantReused(t, e, "ann")
	changed := "its record was changed after the grader wrote it: its digest does not match what it holds"
	wantRegraded(t, e, map[string]string{
		"raised":   changed,
		"allpass":  changed,
		"flipped":  changed,
		"moved":    changed,
		"stripped": "its record carries no digest, so nothing shows it is as the grader wrote it",
		"older":    "its record was written by an older lab, whose records carry no digest, so nothing shows it is as the grader wrote it",
		"other":    "its record's digest was made with another record key than this grader's (" + mine + "), so nothing shows this grader wrote it",
		"copied":   "its record is the record of ann, copied into this student's folder",
		"garbled":  "its record in the earlier results could not be read",
	})
}

// A record key that is a link, that other users may read, that is not a
// regular file, that holds no key, or that is missing checks no record:
// every student is graded again, saying why; a grader writing records
// with such a key writes them with no digest.
func TestRecordKeyRefused(t *testing.T) {
	path := useKey(t)
	dir := writeRecords(t, map[string]*grading.Result{"ann": goodResult("ann")})
	if e, err := class.LoadEarlierOf(dir, forgedWith, forgedLesson); err != nil || e.Len() != 1 {
		t.Fatalf("with its own key: %v, %d reusable", err, e.Len())
	}
	keyDir := filepath.Dir(path)
	if info, err := os.Stat(keyDir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the key's folder: %v, want mode 0700", err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the key: %v, want mode 0600", err)
	}
	key, err := os.ReadFile(path)
	if err != nil || len(key) != 65 {
		t.Fatalf("the key file holds %q (%v), want 64 hex digits and a newline", key, err)
	}

	link := filepath.Join(keyDir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(keyDir, "open")
	if err := os.WriteFile(open, key, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(keyDir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(keyDir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "record-key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(dir, "record-key")
	for file, want := range map[string]string{
		link:                                "its record cannot be checked: the record key file " + link + " is a symbolic link, which the grader does not follow",
		open:                                "its record cannot be checked: the record key file " + open + " may be read or written by other users (mode 0644), so others may know the key: remove it, and the grader makes a new one",
		sub:                                 "its record cannot be checked: the record key file " + sub + " is not a regular file",
		short:                               "its record cannot be checked: the record key file " + short + " does not hold a record key (64 hex digits): remove it, and the grader makes a new one",
		filepath.Join(shared, "record-key"): "its record cannot be checked: the folder of the record key " + shared + " may be written by other users (mode 0777), who could put another key in its place",
		filepath.Join(keyDir, "absent"):     "its record's digest was made with another record key: this grader has none (" + filepath.Join(keyDir, "absent") + " does not exist)",
		inside:                              "its record cannot be checked: the record key file " + inside + " lies in the earlier results " + dir + ", where it would be no secret",
	} {
		t.Setenv(class.RecordKeyEnv, file)
		e, err := class.LoadEarlierOf(dir, forgedWith, forgedLesson)
		if err != nil {
			t.Fatalf("key %s: %v", file, err)
		}
		if e.Len() != 0 || e.Skipped != 1 {
			t.Errorf("key %s: %d reusable, %d skipped; want 0 and 1", file, e.Len(), e.Skipped)
		}
		wantRegraded(t, e, map[string]string{"ann": want})
	}

	// Written with a world-readable key, a record carries no digest, and
	// the key is left as it was (no new one is made in its place).
	t.Setenv(class.RecordKeyEnv, open)
	unsigned := writeRecords(t, map[string]*grading.Result{"ann": goodResult("ann")})
	data, err := os.ReadFile(recordPath(unsigned, "ann"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(`"digest"`)) || bytes.Contains(data, []byte(`"key"`)) {
		t.Errorf("a record written with a key others may read carries a digest: %s", data)
	}
	if again, _ := os.ReadFile(open); !bytes.Equal(again, key) {
		t.Error("the refused key file was changed")
	}
	t.Setenv(class.RecordKeyEnv, path)
	e, err := class.LoadEarlierOf(unsigned, forgedWith, forgedLesson)
	if err != nil {
		t.Fatal(err)
	}
	wantRegraded(t, e, map[string]string{"ann": "its record carries no digest, so nothing shows it is as the grader wrote it"})
}

// The grader makes its key on first use, under the user's config folder
// when no file is named, and a record rewritten for a reused result is the
// earlier one byte for byte.
func TestRecordKeyMadeOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv(class.RecordKeyEnv, "")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("HOME", home)
	path, err := class.RecordKeyFile(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.UserConfigDir()
	if want := filepath.Join(cfg, "mcplab", "record-key"); path != want || !strings.HasPrefix(path, home) {
		t.Fatalf("RecordKeyFile = %s, want %s", path, want)
	}
	k1, err := class.EnsureRecordKey(path)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := class.EnsureRecordKey(path)
	if err != nil || k2.File != k1.File {
		t.Fatalf("the second EnsureRecordKey: %v", err)
	}
	a := writeRecords(t, map[string]*grading.Result{"ann": goodResult("ann")})
	b := writeRecords(t, map[string]*grading.Result{"ann": goodResult("ann")})
	ra, _ := os.ReadFile(recordPath(a, "ann"))
	rb, _ := os.ReadFile(recordPath(b, "ann"))
	if len(ra) == 0 || !bytes.Equal(ra, rb) {
		t.Errorf("the same record written twice differs:\n%s\n%s", ra, rb)
	}
	e, err := class.LoadEarlierOf(a, forgedWith, forgedLesson)
	if err != nil {
		t.Fatal(err)
	}
	wantReused(t, e, "ann")
}
