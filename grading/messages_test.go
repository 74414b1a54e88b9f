package grading

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMorePlacesWording holds the "(It failed in N more places as well:
// ...)" parenthesis to exact words: the first failure's scenario is "this
// scenario" and its own place is not named again ("the same command
// again"), a place that names itself is not counted ("command 2 {...}",
// never "1 command 2 {...}"), a bare noun is counted ("2 calls"), and the
// number of places takes its right form.
func TestMorePlacesWording(t *testing.T) {
	cmd := `command 1 {"command":"list_tools"}`
	for _, c := range []struct {
		name  string
		first Failure
		rest  []Failure
		want  string
	}{
		{"none", Failure{Scenario: "a"}, nil, ""},
		{"one command in the same scenario", Failure{Scenario: "everyday", Where: cmd},
			[]Failure{{Scenario: "everyday", Where: cmd}},
			"(It failed in 1 more place as well: this scenario (the same command again).)"},
		{"a command named once", Failure{Scenario: "everyday", Where: cmd},
			[]Failure{{Scenario: "everyday", Where: `command 2 {"command":"call_tool"}`}, {Scenario: "everyday", Where: cmd}, {Scenario: "everyday", Where: cmd}},
			`(It failed in 3 more places as well: this scenario (the same command, 2 more times; command 2 {"command":"call_tool"}).)`},
		{"calls counted", Failure{Scenario: "everyday", Where: "call"},
			[]Failure{{Scenario: "everyday", Where: "call"}, {Scenario: "hang", Where: "call"}, {Scenario: "hang", Where: "call"}},
			"(It failed in 3 more places as well: this scenario (1 call); scenario hang (2 calls).)"},
		{"lines", Failure{Scenario: "01", Where: "line 1"},
			[]Failure{{Scenario: "01", Where: "line 2"}, {Scenario: "02", Where: "line 3"}, {Scenario: "02", Where: "line 5"}},
			"(It failed in 3 more places as well: this scenario (line 2); scenario 02 (lines 3 and 5).)"},
		{"an order", Failure{Scenario: "03", Where: "line 2"},
			[]Failure{{Scenario: "03", Where: "the order of ids 2 and 1"}},
			"(It failed in 1 more place as well: this scenario (the order of ids 2 and 1).)"},
		{"no place", Failure{Scenario: "01"},
			[]Failure{{Scenario: "02"}},
			"(It failed in 1 more place as well: scenario 02.)"},
	} {
		if got := MorePlaces(c.first, c.rest); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestRunContextWording: the sentence that says what cut a run short
// names the server once and lists ids as a sentence would.
func TestRunContextWording(t *testing.T) {
	for ids, want := range map[string]string{
		"3":             "the answer to id 3",
		"3 4":           "the answers to ids 3 and 4",
		"1 2 3":         "the answers to ids 1, 2 and 3",
		"1 2 3 4 5 6 7": "the answers to ids 1, 2, 3, 4, 5 and 2 more",
	} {
		if got := AwaitedIDs(strings.Fields(ids)); got != want {
			t.Errorf("awaitedIDs(%s) = %q, want %q", ids, got, want)
		}
	}
	for reason, want := range map[string]string{
		"the server was still running 5s after its stdin closed": "the server was stopped because it was still running 5s after its stdin closed",
		"the scenario ends here":                                 "the server was stopped because the scenario ends here",
	} {
		if got := StoppedBecause(reason); got != want {
			t.Errorf("stoppedBecause(%q) = %q, want %q", reason, got, want)
		}
	}
	if Pick(1, "it", "them") != "it" || Pick(2, "it", "them") != "them" {
		t.Error("pick chose the wrong form")
	}
}

// TestFailureEvidenceInFields: a failed check keeps, as fields a result
// file holds, the scenarios its failures came from (in order, once each)
// and the line its first failure is about, the one its message quotes
// first; a check that passed has neither.
func TestFailureEvidenceInFields(t *testing.T) {
	tally := NewTally()
	tally.Test("a", "b")
	tally.Fail(Failure{Scenario: "02-ids", Where: "line 3", Line: `{"id":3}`, What: "line 3 `{\"id\":3}` got no answer", Actual: "(nothing)"}, "a")
	tally.Fail(Failure{What: "the run as a whole failed"}, "a")
	tally.Fail(Failure{Scenario: "01-basics", Where: "line 1", Line: `{"id":1}`, What: "line 1 `{\"id\":1}` got no answer"}, "a")
	tally.Fail(Failure{Scenario: "02-ids", Where: "line 5", Line: `{"id":5}`, What: "line 5 `{\"id\":5}` got no answer"}, "a")
	var res Result
	res.Judge([]Check{{ID: "a", Points: 1}, {ID: "b", Points: 1}}, tally)
	a, b := res.Checks[0], res.Checks[1]
	if strings.Join(a.Scenarios, " ") != "02-ids 01-basics" || a.Line != `{"id":3}` {
		t.Errorf("the failed check: scenarios %q, line %q; want [02-ids 01-basics] and the first failure's line", a.Scenarios, a.Line)
	}
	if !strings.Contains(a.Message, "line 3 `"+a.Line+"`") {
		t.Errorf("the message %q does not quote the line %q", a.Message, a.Line)
	}
	raw, err := json.Marshal(a)
	if err != nil || !strings.Contains(string(raw), `"scenarios":["02-ids","01-basics"]`) || !strings.Contains(string(raw), `"line":"{\"id\":3}"`) {
		t.Errorf("in a file: %s, %v", raw, err)
	}
	if raw, _ := json.Marshal(b); strings.Contains(string(raw), `"scenarios"`) || strings.Contains(string(raw), `"line"`) {
		t.Errorf("a check that passed: %s", raw)
	}
}
