package serverlesson

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
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
	return readAnswers([]stdioprobe.Answer{{Line: line, Msg: msg, Problem: problem}})[0]
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
	all, allGrade := judges([]grading.Check{{ID: "framing.split-message", Judge: judgeNameSplitMessage}, {ID: "ids.exact", Judge: judgeNameIDsExact},
		{ID: "stderr.logs", Judge: judgeNameStderrLogs}, {ID: "tools.list"}})
	few, grade := judges([]grading.Check{{ID: "tools.list"}})
	if len(all) != 5 || len(allGrade) != 1 || len(few) != 3 || len(grade) != 0 {
		t.Errorf("%d judges (and %d for the whole run) for framing, ids, stderr and tagged checks, %d for tagged checks alone (and %d for the whole run)", len(all), len(allGrade), len(few), len(grade))
	}
	registry := serverJudges()
	var names []string
	for _, f := range families() {
		for _, j := range f.judges {
			names = append(names, j)
			if _, ok := registry.Lookup(j); !ok {
				t.Errorf("the family of %s works for a judge the registry does not have", j)
			}
		}
	}
	if got := registry.Names(); !slices.Equal(got, names) {
		t.Errorf("the registry has %q, the families work for %q", got, names)
	}
}

// TestServedChecksNameTheirFaults checks that a judge charges the check of
// the catalogue that names it, whatever its id, and that a lesson whose
// catalogue names no check for a judge has none: its faults are dropped.
func TestServedChecksNameTheirFaults(t *testing.T) {
	const text = "-- steps --\nat 0ms send n\n-- n --\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- expect --\nping.ok {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"
	sc, err := scenario.Parse("x", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":null,"result":{}}`}
	failed := func(checks []grading.Check) []string {
		run := &stdioprobe.Run{Scenario: sc, Ready: true, Closed: true, ExitedAfterClose: true}
		for _, line := range out {
			msg, problem := wire.ParseResponse([]byte(line))
			run.Answers = append(run.Answers, stdioprobe.Answer{Line: line, Msg: msg, Problem: problem})
		}
		ev, err := newEvidence(run, sc, servedBy(checks))
		if err != nil {
			t.Fatal(err)
		}
		tl := grading.NewTally()
		perScenario, _ := judges(checks)
		for _, j := range perScenario {
			j(ev, tl)
		}
		var ids []string
		for id := range tl.Failures {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids
	}
	renamed := []grading.Check{{ID: "ping.ok"}, {ID: "quiet", Judge: judgeNameSilent}, {ID: "once", Judge: judgeNameAnswersOnce}}
	if got := failed(renamed); !slices.Equal(got, []string{"quiet"}) {
		t.Errorf("an answer to the notification failed %q, want the check notifications-silent serves, quiet", got)
	}
	if got := failed(renamed[:1]); len(got) != 0 {
		t.Errorf("a lesson without the notification's judge failed %q", got)
	}
}

// TestLessonDirManifest reads a teacher's lesson folder through its own
// manifest, and refuses one that is another lesson.
func TestLessonDirManifest(t *testing.T) {
	dir := fstest.MapFS{
		"lesson.txt":       {Data: []byte("number: 1\ntitle: T\nsubject: server\nserver: reader\nready: none\nchecks: cases/list.txtar\ngrading: cases/*.txtar\n")},
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
