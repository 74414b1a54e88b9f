package serverlesson

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lab/wire"
)

// judgeOne plays no server: it judges one scenario on the stdout lines
// given, as a server that then exited 0 after stdin closed, with the
// framing, ids and answers families and the tagged checks, and returns the
// failed checks, sorted, with their messages.
func judgeOne(t *testing.T, text string, out ...string) ([]string, map[string]string) {
	t.Helper()
	sc, err := scenario.Parse("x", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	run := &stdioprobe.Run{Scenario: sc, Ready: true, Closed: true, ExitedAfterClose: true}
	for _, line := range out {
		msg, problem := wire.ParseResponse([]byte(line))
		run.Answers = append(run.Answers, stdioprobe.Answer{Line: line, Msg: msg, Problem: problem})
	}
	checks := []grading.Check{{ID: "framing.split-message", Judge: judgeNameSplitMessage}, {ID: "framing.many-per-chunk", Judge: judgeNameManyPerChunk},
		{ID: "ids.exact", Judge: judgeNameIDsExact}, {ID: "answers.once", Judge: judgeNameAnswersOnce},
		{ID: "notifications.silent", Judge: judgeNameSilent}, {ID: "stdout.messages-only", Judge: judgeNameMessagesOnly}}
	ev, err := newEvidence(run, sc, servedBy(checks))
	if err != nil {
		t.Fatal(err)
	}
	perScenario, _ := judges(checks)
	tl := grading.NewTally()
	for _, j := range perScenario {
		j(ev, tl)
	}
	var failed []string
	msgs := map[string]string{}
	for id, fs := range tl.Failures {
		failed = append(failed, id)
		var ws []string
		for _, f := range fs {
			ws = append(ws, f.What)
		}
		msgs[id] = strings.Join(ws, " | ")
	}
	sort.Strings(failed)
	return failed, msgs
}

// TestOneFaultOneCheck checks that each line's missing, wrong or extra
// answer is charged to exactly one check: the one the line is tagged with,
// or a framing check, and answers.once only for what no other check names.
func TestOneFaultOneCheck(t *testing.T) {
	const three = "-- steps --\nat 0ms send abc\nat 100ms close\n-- abc --\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n" +
		"-- expect --\n" +
		"m.one {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" +
		"m.two {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n" +
		"m.three {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n"
	ok := func(id int) string { return "{\"jsonrpc\":\"2.0\",\"id\":" + string(rune('0'+id)) + ",\"result\":{}}" }
	tests := []struct {
		name, scenario string
		out            []string
		failed         []string
		says           map[string]string // a part of each failed check's message
	}{
		{
			// mcp-go's answer to a method that is a number: -32700 with id
			// null, the wrong answer to the line with id 8, charged to the
			// line's check and not again as an answer no line asks for, nor
			// to ids.exact.
			name:     "misread id",
			scenario: "-- steps --\nat 0ms send bad\nat 100ms close\n-- bad --\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":42}\n-- expect --\nerrors.invalid-request {\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":-32600}}\n",
			out:      []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
			failed:   []string{"errors.invalid-request"},
			says: map[string]string{"errors.invalid-request": "line 1 `{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":42}` should get -32600 (Invalid Request) with id 8; it got " +
				"`{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}` instead, which does not carry the line's id 8"},
		},
		{
			// A second such error is an answer no line asks for.
			name:     "misread twice",
			scenario: "-- steps --\nat 0ms send bad\nat 100ms close\n-- bad --\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":42}\n-- expect --\nerrors.invalid-request {\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":-32600}}\n",
			out: []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
			failed: []string{"answers.once", "errors.invalid-request"},
			says:   map[string]string{"answers.once": "1 answer came that no line of the scenario asks for"},
		},
		{
			// A request the scenario expects an answer to, left unanswered
			// when stdin closes: its check alone.
			name:     "tagged request unanswered",
			scenario: "-- steps --\nat 0ms send a\nat 100ms close\n-- a --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- expect --\nm.one {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
			failed:   []string{"m.one"},
			says:     map[string]string{"m.one": "nothing came for it"},
		},
		{
			// answers.once tagged on the line: charged once, by its tag.
			name:     "answers.once tagged",
			scenario: "-- steps --\nat 0ms send a\nat 100ms close\n-- a --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- expect --\nanswers.once {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
			failed:   []string{"answers.once"},
			says:     map[string]string{"answers.once": "line 1 `{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}` should get the result {} with id 1; nothing came for it"},
		},
		{
			// A request no check covers, left unanswered: answers.once.
			name:     "untagged request unanswered",
			scenario: "-- steps --\nat 0ms send a\nat 10ms send b\nat 100ms close\n-- a --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n-- b --\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n-- expect --\nm.one {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
			out:      []string{ok(1)},
			failed:   []string{"answers.once"},
			says:     map[string]string{"answers.once": "1 request got no answer at all: id 2"},
		},
		{
			// A line between two the server answered, in the same write:
			// it found both newlines around it, so its own check is
			// charged, not framing.many-per-chunk.
			name: "lost between answered lines", scenario: three,
			out:    []string{ok(1), ok(3)},
			failed: []string{"m.two"},
			says:   map[string]string{"m.two": "line 2 `{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}` should get the result {} with id 2; nothing came for it"},
		},
		{
			// A server that reads only the first line of a write loses the
			// rest to framing, and to nothing else.
			name: "first line of a write only", scenario: three,
			out:    []string{ok(1)},
			failed: []string{"framing.many-per-chunk"},
			says:   map[string]string{"framing.many-per-chunk": "2 of the 3 lines that ended in a write holding the end of another line got no answer of their own"},
		},
		{
			// A server that takes each read for one line, when the pipe
			// handed it two writes in one read (a busy machine): lines 3
			// and 4 came each in a write of its own and got one parse
			// error between them. That is the fault many-per-chunk names,
			// which lines 1 and 2 show anyway, so it is charged there and
			// the score does not hang on the machine's load; answers.once
			// is not charged for lines 3 and 4, nor for the error.
			name: "two writes read as one",
			scenario: "-- steps --\nat 0ms send ab\nat 20ms send c\nat 40ms send d\nat 60ms send e\nat 100ms close\n" +
				"-- ab --\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n" +
				"-- c --\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n" +
				"-- d --\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n" +
				"-- e --\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n",
			out: []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, ok(5)},
			failed: []string{"framing.many-per-chunk"},
			says: map[string]string{"framing.many-per-chunk": "2 of the 2 lines that ended in a write holding the end of another line got no answer of their own: " +
				"line 1 `{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}`; line 2 `{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}`. Also, 2 lines that each came in a write of their own got no answer, " +
				"next to a write whose lines got none either, and the server wrote an error with no id: it read two writes that reached it together as one line"},
		},
		{
			// The same two lines lost with no error at all: nothing shows
			// they were read as one, so each is an answer missing, for
			// answers.once.
			name: "two lines lost without an error",
			scenario: "-- steps --\nat 0ms send c\nat 20ms send d\nat 40ms send e\nat 100ms close\n" +
				"-- c --\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n" +
				"-- d --\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n" +
				"-- e --\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n",
			out:    []string{ok(5)},
			failed: []string{"answers.once"},
		},
		{
			// One line of its own lost next to one answered, with an error
			// that answered it: the line's own misread, not framing.
			name: "one write lost next to an answered one",
			scenario: "-- steps --\nat 0ms send c\nat 20ms send d\nat 100ms close\n" +
				"-- c --\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n" +
				"-- d --\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n",
			out:    []string{ok(3), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
			failed: []string{"answers.once"},
		},
		{
			// One that reads only the last line of a write, too.
			name: "last line of a write only", scenario: three,
			out:    []string{ok(3)},
			failed: []string{"framing.many-per-chunk"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			failed, msgs := judgeOne(t, tc.scenario, tc.out...)
			if !reflect.DeepEqual(failed, tc.failed) {
				t.Errorf("failed %v, want %v; messages %v", failed, tc.failed, msgs)
			}
			for id, part := range tc.says {
				if !strings.Contains(msgs[id], part) {
					t.Errorf("%s says:\n%s\nwant it to hold:\n%s", id, msgs[id], part)
				}
			}
		})
	}
}
