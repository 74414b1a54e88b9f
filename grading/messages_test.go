package grading

import (
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
		first failure
		rest  []failure
		want  string
	}{
		{"none", failure{scenario: "a"}, nil, ""},
		{"one command in the same scenario", failure{scenario: "everyday", where: cmd},
			[]failure{{scenario: "everyday", where: cmd}},
			"(It failed in 1 more place as well: this scenario (the same command again).)"},
		{"a command named once", failure{scenario: "everyday", where: cmd},
			[]failure{{scenario: "everyday", where: `command 2 {"command":"call_tool"}`}, {scenario: "everyday", where: cmd}, {scenario: "everyday", where: cmd}},
			`(It failed in 3 more places as well: this scenario (the same command, 2 more times; command 2 {"command":"call_tool"}).)`},
		{"calls counted", failure{scenario: "everyday", where: "call"},
			[]failure{{scenario: "everyday", where: "call"}, {scenario: "hang", where: "call"}, {scenario: "hang", where: "call"}},
			"(It failed in 3 more places as well: this scenario (1 call); scenario hang (2 calls).)"},
		{"lines", failure{scenario: "01", where: "line 1"},
			[]failure{{scenario: "01", where: "line 2"}, {scenario: "02", where: "line 3"}, {scenario: "02", where: "line 5"}},
			"(It failed in 3 more places as well: this scenario (line 2); scenario 02 (lines 3 and 5).)"},
		{"an order", failure{scenario: "03", where: "line 2"},
			[]failure{{scenario: "03", where: "the order of ids 2 and 1"}},
			"(It failed in 1 more place as well: this scenario (the order of ids 2 and 1).)"},
		{"no place", failure{scenario: "01"},
			[]failure{{scenario: "02"}},
			"(It failed in 1 more place as well: scenario 02.)"},
	} {
		if got := morePlaces(c.first, c.rest); got != c.want {
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
		if got := awaitedIDs(strings.Fields(ids)); got != want {
			t.Errorf("awaitedIDs(%s) = %q, want %q", ids, got, want)
		}
	}
	for reason, want := range map[string]string{
		"the server was still running 5s after its stdin closed": "the server was stopped because it was still running 5s after its stdin closed",
		"the scenario ends here":                                 "the server was stopped because the scenario ends here",
	} {
		if got := stoppedBecause(reason); got != want {
			t.Errorf("stoppedBecause(%q) = %q, want %q", reason, got, want)
		}
	}
	if pick(1, "it", "them") != "it" || pick(2, "it", "them") != "them" {
		t.Error("pick chose the wrong form")
	}
}
