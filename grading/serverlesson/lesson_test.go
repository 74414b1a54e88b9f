package serverlesson

import (
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lessons"
)

// TestLessonDataIsConsistent guards the teachers' data: in every grading
// scenario that ends by closing stdin, each request sent has exactly one
// expected answer, the expected answers with id null match the lines that
// deserve one, and every check of the catalogue is tested somewhere.
func TestLessonDataIsConsistent(t *testing.T) {
	l, err := Load(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	lesson, _ := lessons.Get(1)
	data, err := lesson.Read("scenario.txtar")
	if err != nil {
		t.Fatal(err)
	}
	runScenario, err := scenario.Parse("scenario", data)
	if err != nil {
		t.Fatal(err)
	}
	tested := map[string]bool{}
	for _, sc := range append(l.Scenarios, runScenario) {
		for _, e := range sc.Expect {
			for _, c := range e.Checks {
				tested[c] = true
			}
		}
		for _, o := range sc.Orders {
			for _, c := range o.Checks {
				tested[c] = true
			}
		}
		lines, err := sentLines(sc)
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		if sc.Ends() != scenario.StepClose {
			continue
		}
		for _, l := range lines {
			if l.deservesAnswer() && l.expect == nil {
				t.Errorf("%s: %s deserves an answer, but the scenario expects none for it", sc.Name, l.describe())
			}
			if l.expect != nil && l.kind == lineNullID && l.expect.Code != l.code {
				t.Errorf("%s: %s deserves error %d, but the expected answer tied to it has %d (list the answers with id null in the order of their lines)", sc.Name, l.describe(), l.code, l.expect.Code)
			}
		}
	}
	for _, c := range l.Checks() {
		if c.Judge == "" && !tested[c.ID] {
			t.Errorf("check %s is neither derived nor tagged in any scenario", c.ID)
		}
	}
}

// TestCheckCatalogueErrors checks that a broken catalogue is refused with a
// clear reason.
func TestCheckCatalogueErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no title":    "-- a.b --\npoints: 1\n",
		"bad points":  "-- a.b --\ntitle: t\npoints: many\n",
		"unknown key": "-- a.b --\ntitle: t\ncolour: red\n",
		"twice":       "-- a.b --\ntitle: t\n-- a.b --\ntitle: u\n",
		"empty":       "nothing\n",
	} {
		if _, err := grading.ParseChecks([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	dir := fstest.MapFS{
		"lesson.txt":       {Data: []byte("number: 9\ntitle: T\nsubject: server\nserver: reader\nready: none\nchecks: cases/list.txtar\ngrading: cases/*.txtar\n")},
		"cases/list.txtar": {Data: []byte("-- ids --\ntitle: ids\npoints: 1\njudge: exact-ids\n")},
		"cases/one.txtar":  {Data: []byte("-- steps --\nat 0ms send p\n-- p --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")},
	}
	_, err := Load(9, dir)
	want := `lesson 9: cases/list.txtar: check ids: there is no judge "exact-ids" (the judges of this kind of lesson: messages-only, split-message, many-per-chunk, ids-exact, answers-once, notifications-silent, exit-on-eof, stderr-logs)`
	if err == nil || err.Error() != want {
		t.Errorf("a catalogue naming an unknown judge: got %v,\nwant %s", err, want)
	}
}
