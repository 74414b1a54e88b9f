package serverlesson

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/client"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/wire"
)

// TestPartialMatch checks what a partial expectation lets through.
func TestPartialMatch(t *testing.T) {
	want := json.RawMessage(`{"tools":[{"name":"get_ticket"}],"ttlMs":3600000}`)
	for got, ok := range map[string]bool{
		`{"tools":[{"name":"get_ticket","description":"any words"}],"ttlMs":3600000,"cacheScope":"public"}`: true,
		`{"tools":[{"name":"get_ticket"}],"ttlMs":3600000.0}`:                                               false,
		`{"tools":[{"name":"get_ticket"},{"name":"other"}],"ttlMs":3600000}`:                                false,
		`{"tools":[{"name":"get_tickets"}],"ttlMs":3600000}`:                                                false,
		`{"tools":{"name":"get_ticket"},"ttlMs":3600000}`:                                                   false,
		`{"ttlMs":3600000}`: false,
	} {
		if jsonContains(want, json.RawMessage(got)) != ok {
			t.Errorf("%s holds %s: want %v", got, want, ok)
		}
	}
}

func answerOf(line string) *answer {
	msg, problem := wire.ParseResponse([]byte(line))
	return readAnswers([]client.Answer{{Line: line, Msg: msg, Problem: problem}})[0]
}

// TestNoIDAnswers checks that an expected answer with no id member matches
// only an answer with none, and one with id null only an answer with null.
func TestNoIDAnswers(t *testing.T) {
	sc, err := scenario.Parse("x", []byte("-- steps --\nkill\n-- expect --\n"+
		"e.none {\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32700}}\n"+
		"e.null {\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	none, null := sc.Expect[0], sc.Expect[1]
	without := answerOf(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)
	with := answerOf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	if !matches(none, without) || matches(none, with) || matches(null, without) || !matches(null, with) {
		t.Errorf("no id: %v %v; id null: %v %v", matches(none, without), matches(none, with), matches(null, without), matches(null, with))
	}
	if !without.shaped || without.hasID {
		t.Errorf("an answer with no id read as %+v", without)
	}
	if got := describeExpected(none); got != "-32700 (Parse error) with no id member" {
		t.Errorf("described as %q", got)
	}
}

// TestFamiliesFollowTheCatalogue checks that a lesson gets the judges of
// the families its catalogue uses, and every lesson the tagged-answer ones.
func TestFamiliesFollowTheCatalogue(t *testing.T) {
	all, _ := judges([]grading.Check{{ID: checkSplitMessage}, {ID: checkIDsExact}, {ID: checkStderrLogs}, {ID: "tools.list"}})
	few, grade := judges([]grading.Check{{ID: "tools.list"}})
	if len(all) != 5 || len(few) != 3 || len(grade) != 0 {
		t.Errorf("%d judges for framing, ids and tagged checks, %d for tagged checks alone (and %d for the whole run)", len(all), len(few), len(grade))
	}
	for _, id := range []string{checkSplitMessage, checkManyPerChunk, checkIDsExact, checkAnswersOnce, checkSilent, checkMessagesOnly, checkStderrLogs, checkExitOnEOF} {
		if !knownDerived(id) {
			t.Errorf("%s has no family", id)
		}
	}
	if knownDerived("tools.list") {
		t.Error("tools.list is judged from tagged answers, not by a family")
	}
}

// TestLessonDirManifest reads a teacher's lesson folder through its own
// manifest, and refuses one that is another lesson.
func TestLessonDirManifest(t *testing.T) {
	dir := fstest.MapFS{
		"lesson.txt":       {Data: []byte("number: 1\ntitle: T\nserver: reader\nready: none\nchecks: cases/list.txtar\ngrading: cases/*.txtar\n")},
		"cases/list.txtar": {Data: []byte("-- methods.ping --\ntitle: ping answers\npoints: 1\n")},
		"cases/one.txtar":  {Data: []byte("-- steps --\nat 0ms send p\n-- p --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- expect --\nmethods.ping {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n")},
	}
	l, err := Load(1, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Scenarios) != 1 || len(l.Checks()) != 1 || !ReadinessFor(l.Manifest()).None {
		t.Errorf("lesson %+v", l)
	}
	if _, err := Load(2, dir); err == nil || !strings.Contains(err.Error(), "is lesson 1, not lesson 2") {
		t.Errorf("Load(2) = %v", err)
	}
}
