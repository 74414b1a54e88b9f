package lessons

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// TestBuiltInLessons reads every built-in manifest: lesson 1 keeps its
// data where the commands look for it, and each lesson names a server.
func TestBuiltInLessons(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 || all[0].Number != 1 || all[1].Number != 2 {
		t.Fatalf("lessons: %+v", all)
	}
	one := all[0]
	if one.Server != "reader" || one.Ready != (Readiness{Kind: "stderr", Pattern: "ready"}) || one.Run != "scenario.txtar" || one.Model != "model" {
		t.Errorf("lesson 1: %+v", one)
	}
	files, err := one.GradingScenarios(FS(), one.Dir)
	if err != nil || len(files) != 11 || strings.HasSuffix(files[0], "checks.txtar") {
		t.Errorf("lesson 1's grading scenarios: %q, %v", files, err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "/checks.txtar") {
			t.Errorf("the catalogue %s is listed as a scenario", f)
		}
	}
	if _, err := one.Read(one.Run); err != nil {
		t.Error(err)
	}
	if two := all[1]; two.Server != "helpdesk" || two.Ready.Kind != "probe" || !strings.Contains(two.Ready.Probe, `"lab-ready"`) {
		t.Errorf("lesson 2: %+v", two)
	}
	if _, err := Get(99); err == nil || !strings.Contains(err.Error(), "1 (Reading messages)") {
		t.Errorf("Get(99) = %v, want an error listing the lessons", err)
	}
}

// TestParseManifest checks the defaults and that a bad manifest is refused
// with the line that is wrong. The subject is read as a word only: which
// kinds there are, and which lines each needs, are the kinds' to say.
func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte("# a comment\nnumber: 7\ntitle: T\nsubject: server\nserver: s\nready: none\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{Number: 7, Title: "T", Subject: "server", Server: "s", Ready: Readiness{Kind: "none"}, Checks: "grading/checks.txtar", Grading: "grading/*.txtar"}
	if !reflect.DeepEqual(*m, want) {
		t.Errorf("got %+v, want %+v", *m, want)
	}
	m, err = ParseManifest([]byte("number: 8\ntitle: T\nsubject: robot-2\nservers: a  b\n"))
	if err != nil || m.Subject != "robot-2" || !reflect.DeepEqual(m.Servers, []string{"a", "b"}) || m.Server != "" {
		t.Errorf("a kind the parser does not know: %+v, %v; want it read as it is", m, err)
	}
	for text, want := range map[string]string{
		"title: T\nsubject: server\nserver: s\n":                       `the manifest has no "number" line`,
		"number: 1\nsubject: server\n":                                 `the manifest has no "title" line`,
		"number: 1\ntitle: T\nserver: s\n":                             `the manifest has no "subject" line`,
		"number: 0\ntitle: T\nserver: s\n":                             `line 1: number "0" is not a whole number from 1 to 99`,
		"number: 1\nnumber: 2\ntitle: T\nserver: s\n":                  "line 2: number is given twice",
		"number: 1\ntitle: T\nserver: s\ncolour: red\n":                `line 4: unknown key "colour" (want number, title, subject, server, client, servers, ready, run, checks, grading, model)`,
		"number: 1\ntitle: T\nsubject: two words\n":                    `line 3: subject "two words" is not a kind of lesson: name the kind in one word, in lower case (lessons/README.md lists the kinds)`,
		"number: 1\ntitle: T\nsubject: Server\n":                       `line 3: subject "Server" is not a kind of lesson: name the kind in one word, in lower case (lessons/README.md lists the kinds)`,
		"number: 1\ntitle: T\nsubject: -x\n":                           `line 3: subject "-x" is not a kind of lesson: name the kind in one word, in lower case (lessons/README.md lists the kinds)`,
		"number: 1\ntitle: T\nserver: s\nready: soon\n":                `line 4: ready "soon": want "stderr TEXT", "probe {REQUEST}" or "none"`,
		"number: 1\ntitle: T\nserver: s\nready: probe x\n":             `line 4: ready "probe x": want "stderr TEXT", "probe {REQUEST}" or "none"`,
		"number: 1\ntitle: T\nsubject: server\nserver: s\nrun: ../x\n": `"../x" is not a path inside the lesson's folder`,
		"number: 1\ntitle T\n":                                         `line 2: want "key: value", got "title T"`,
		"number: 1\ntitle:\n":                                          `line 2: want "key: value", got "title:"`,
	} {
		if _, err := ParseManifest([]byte(text)); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

// TestReadManifest reads a lesson folder that is not built in, as
// lab grade --lesson-dir does.
func TestReadManifest(t *testing.T) {
	fsys := fstest.MapFS{
		"lesson.txt":             {Data: []byte("number: 3\ntitle: T\nsubject: server\nserver: s\nready: probe {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}\ngrading: cases/*.txtar\nchecks: cases/all-checks.txtar\n")},
		"cases/a.txtar":          {},
		"cases/b.txtar":          {},
		"cases/all-checks.txtar": {},
	}
	m, err := ReadManifest(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := m.GradingScenarios(fsys, ".")
	if err != nil || strings.Join(files, " ") != "cases/a.txtar cases/b.txtar" {
		t.Errorf("scenarios %q, %v", files, err)
	}
	if _, err := ReadManifest(fstest.MapFS{}, "."); err == nil {
		t.Error("a folder without a manifest was read")
	}
}
