package clientlesson_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// answerChecks are the checks of lesson 3 judged from a client's answers
// alone: a client that gives none fails them and no other.
var answerChecks = []string{"pagination", "namespacing", "annotations", "isolation"}

// answerSkips are the checks a client that never reaches a server cannot
// be judged on.
var answerSkips = []string{"framing", "meta-in-params", "ids", "http-headers", "response-by-id", "stream-break", "original-name", "two-searches", "timeout-teardown", "truncation"}

// TestClientFloodIsBounded: a client that answers every command with a
// 4 MiB line, then 20 more, is graded with a server's caps: its result
// keeps a bounded transcript that says what was cut and counted, and the
// verdict is that of a client whose answers are not JSON.
func TestClientFloodIsBounded(t *testing.T) {
	exe := bin(t, "hostile-client")
	res := gradeClient(t, proc.Command{Path: exe, Args: []string{"-attack", "flood"}})
	checkClient(t, res, grading.OutcomeWrongAnswers, 0, answerChecks, answerSkips)
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 2<<20 {
		t.Errorf("the result is %d bytes of JSON, want at most 2 MiB", len(data))
	}
	var cut, counted bool
	for _, e := range res.Transcript {
		cut = cut || strings.Contains(e.Text, "more bytes of this line not kept: a line is kept up to 1048576 bytes, 65536 in a transcript]")
		counted = counted || strings.Contains(e.Text, "the client's stdout went past its cap (8388608 bytes or 10000 lines a scenario)")
	}
	if !cut || !counted {
		t.Errorf("the transcript does not say what was cut (%v) and what was counted (%v)", cut, counted)
	}
	for _, c := range res.Checks {
		if c.ID == "pagination" && !strings.Contains(c.Message, "longer than the 1048576 bytes the grader keeps of a line") {
			t.Errorf("pagination's message does not say the answer was too long: %s", c.Message)
		}
	}
}

// TestClientThatEndsAtOnce: a client that ends before it reads a command
// gets the same verdict whether the grader saw its exit, the end of its
// stdout or a failed write to its stdin first: it exited early, and its
// teardown is not judged.
func TestClientThatEndsAtOnce(t *testing.T) {
	for _, script := range []string{"exit 2", "exec 0<&-; sleep 0.2; exit 2", "exec 0<&- 1>&-; sleep 0.2; exit 2"} {
		t.Run(script, func(t *testing.T) {
			res := gradeClient(t, proc.Command{Path: "/bin/sh", Args: []string{"-c", script, "sh"}})
			checkClient(t, res, grading.OutcomeExited, 0, answerChecks, answerSkips)
		})
	}
}
