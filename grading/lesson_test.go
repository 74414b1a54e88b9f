package grading

import (
	"bytes"
	"testing"

	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/wire"
	"github.com/mcplab/mcplab/lessons"
)

// TestLessonDataIsConsistent guards the teachers' data: in every grading
// scenario that ends by closing stdin, each request sent has exactly one
// expected answer, the expected answers with id null match the lines that
// deserve one, and every check of the catalogue is tested somewhere.
func TestLessonDataIsConsistent(t *testing.T) {
	l, err := LoadLesson(1, nil)
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
		if sc.Ends() != scenario.StepClose {
			continue
		}
		sent := readSent(sc.Sent())
		nulls := 0
		for _, e := range sc.Expect {
			if bytes.Equal(e.ID, wire.Null) {
				nulls++
			}
		}
		if nulls != sent.nullAnswers {
			t.Errorf("%s: %d expected answers with id null, but %d lines deserve one", sc.Name, nulls, sent.nullAnswers)
		}
		for _, id := range sent.requestIDs {
			n := 0
			for _, e := range sc.Expect {
				if wire.SameID(e.ID, id) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: request id %s has %d expected answers, want 1", sc.Name, id, n)
			}
		}
	}
	for _, c := range l.Checks {
		if !c.Derived && !tested[c.ID] {
			t.Errorf("check %s is neither derived nor tagged in any scenario", c.ID)
		}
	}
}

// TestCheckCatalogueErrors checks that a broken catalogue is refused with a
// clear reason.
func TestCheckCatalogueErrors(t *testing.T) {
	for name, text := range map[string]string{
		"no title":       "-- a.b --\npoints: 1\n",
		"bad points":     "-- a.b --\ntitle: t\npoints: many\n",
		"unknown key":    "-- a.b --\ntitle: t\ncolour: red\n",
		"twice":          "-- a.b --\ntitle: t\n-- a.b --\ntitle: u\n",
		"empty":          "nothing\n",
		"unknown derive": "-- a.b --\ntitle: t\nderived: yes\n",
	} {
		if _, err := ParseChecks([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
