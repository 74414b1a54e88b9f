package clientlesson_test

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

// gradeClient grades a client for lesson 3, with the test lab binary as
// the relay to its stdio servers.
func gradeClient(t *testing.T, c proc.Command) *grading.Result {
	t.Helper()
	// Graded as lab grade grades: on a loaded machine the client's own
	// timeouts can run out, and what that costs is confirmed at four times
	// the deadlines before it is charged.
	res, err := grading.Grade(context.Background(), grading.Options{Kinds: grading.NewKinds(labKind()), Lesson: 3, Student: c, Relay: []string{bin(t, "lab"), "relay"}})
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	return res
}

// checkClient asserts the exact sets of failed and skipped checks, the
// score out of 14 and the outcome.
func checkClient(t *testing.T, res *grading.Result, outcome grading.OutcomeKind, score int, failed, skipped []string) {
	t.Helper()
	var gotSkipped []string
	for _, c := range res.Checks {
		if c.Status == grading.StatusSkip {
			gotSkipped = append(gotSkipped, c.ID)
		}
	}
	if !reflect.DeepEqual(gotSkipped, skipped) {
		t.Errorf("skipped checks %v, want %v", gotSkipped, skipped)
		for _, c := range res.Checks {
			if c.Status == grading.StatusSkip {
				t.Logf("%s: %s", c.ID, c.Message)
			}
		}
	}
	if got := res.Failed(); !reflect.DeepEqual(got, failed) {
		t.Errorf("failed checks %v, want %v", got, failed)
		for _, c := range res.Checks {
			if c.Status == grading.StatusFail {
				t.Logf("%s: %s", c.ID, c.Message)
			}
		}
	}
	if res.Score != score || res.MaxScore != 14 {
		t.Errorf("score %d/%d, want %d/14", res.Score, res.MaxScore, score)
	}
	if res.Outcome.Kind != outcome {
		t.Errorf("outcome %s (%s), want %s", res.Outcome.Kind, res.Outcome.Detail, outcome)
	}
}

// TestReferenceClientGetsFullMarks is the acceptance: lab client,
// the lab's own reference client, passes every check of lesson 3.
func TestReferenceClientGetsFullMarks(t *testing.T) {
	t.Parallel()
	res := gradeClient(t, proc.Command{Path: bin(t, "lab"), Args: []string{"client"}})
	checkClient(t, res, grading.OutcomePassed, 14, nil, nil)
}

// TestKnownBadClients grades the test client with one mistake at a time,
// as lab grade does: each fails exactly the check about that mistake, and
// skips only the checks its mistake keeps from being seen.
func TestKnownBadClients(t *testing.T) {
	t.Parallel()
	exe := bin(t, "student-client")
	notSeen := []string{"framing", "response-by-id", "stream-break", "two-searches", "isolation", "timeout-teardown", "truncation"}
	for _, tc := range []struct {
		mistake string
		outcome grading.OutcomeKind
		failed  []string
		skipped []string
	}{
		{"", grading.OutcomePassed, nil, nil},
		{"split-lines", grading.OutcomeWrongAnswers, []string{"framing"}, []string{"truncation"}},
		{"first-page", grading.OutcomeWrongAnswers, []string{"pagination"}, nil},
		{"first-event", grading.OutcomeWrongAnswers, []string{"response-by-id"}, nil},
		{"no-progress", grading.OutcomeWrongAnswers, []string{"response-by-id"}, nil},
		{"trust-readonly", grading.OutcomeWrongAnswers, []string{"annotations"}, nil},
		{"namespaced", grading.OutcomeWrongAnswers, []string{"original-name"}, notSeen},
		{"meta-also-top", grading.OutcomeWrongAnswers, []string{"meta-in-params"}, nil},
		{"same-id", grading.OutcomeWrongAnswers, []string{"ids"}, nil},
		{"raw-name", grading.OutcomeWrongAnswers, []string{"http-headers"}, nil},
		{"long-timeout", grading.OutcomeTimeout, []string{"timeout-teardown"}, nil},
		{"no-kill", grading.OutcomeWrongAnswers, []string{"timeout-teardown"}, nil},
		{"no-truncate", grading.OutcomeWrongAnswers, []string{"truncation"}, nil},
		{"hash-tool-only", grading.OutcomeWrongAnswers, []string{"namespacing"}, nil},
		{"die-on-down", grading.OutcomeExited, []string{"isolation"}, nil},
		{"wait-on-break", grading.OutcomeWrongAnswers, []string{"stream-break"}, nil},
		{"table-by-tool", grading.OutcomeWrongAnswers, []string{"two-searches"}, nil},
	} {
		name := tc.mistake
		if name == "" {
			name = "no-mistake"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := proc.Command{Path: exe}
			if tc.mistake != "" {
				c.Args = []string{"-mistake", tc.mistake}
			}
			res := gradeClient(t, c)
			checkClient(t, res, tc.outcome, 14-len(tc.failed)-len(tc.skipped), tc.failed, tc.skipped)
		})
	}
}

// TestClientFailuresSayWhatToDo checks that a client's failure names the
// command, what came back, what was expected, the rule and the fix.
func TestClientFailuresSayWhatToDo(t *testing.T) {
	t.Parallel()
	exe := bin(t, "student-client")
	res := gradeClient(t, proc.Command{Path: exe, Args: []string{"-mistake", "no-truncate"}})
	for _, c := range res.Checks {
		if c.ID != "truncation" {
			continue
		}
		if c.Expected != "text# equal to 8052" {
			t.Errorf("expected %q, want %q", c.Expected, "text# equal to 8052")
		}
		for _, want := range []string{"In scenario everyday", "command 4", "incident-log", "text# is 24000", "Rule: ", "(lesson 3, \"One budget for results\")", "Fix: "} {
			if !strings.Contains(c.Message, want) {
				t.Errorf("the message lacks %q:\n%s", want, c.Message)
			}
		}
		return
	}
	t.Fatal("no truncation check")
}

// TestAClientTheMachineMadeGiveUpIsGradedAgain grades a correct client
// that acts as on a machine too loaded for the first run (-loaded: it
// gives up at once on its first tools/list to each stdio server at time
// scale 1): the first run fails and skips checks, each of which rests on
// the client's own deadline (a request it cancelled, or, when the relay of
// a server had not connected before it gave up, a server the lab never
// heard from), and lab grade's confirmation, at four times
// the deadlines, gives full marks, says which checks it cleared and which
// it judged, and shows the rerun's transcript.
func TestAClientTheMachineMadeGiveUpIsGradedAgain(t *testing.T) {
	t.Parallel()
	c := proc.Command{Path: bin(t, "student-client"), Args: []string{"-loaded"}}
	opts := grading.Options{Kinds: grading.NewKinds(labKind()), Lesson: 3, Student: c, Relay: []string{bin(t, "lab"), "relay"}}
	first, err := grading.GradeKind(context.Background(), labKind(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Failed()) == 0 {
		t.Fatalf("the first run failed nothing (%s): the -loaded client should have lost a server's tools", first.Outcome.Detail)
	}
	for _, ch := range first.Checks {
		if ch.Status != grading.StatusPass && !ch.Deadline {
			t.Errorf("first run: %s %s rests on no deadline: %s", ch.ID, ch.Status, ch.Message)
		}
		if ch.Status != grading.StatusPass {
			t.Logf("first run: %s %s: %s", ch.Status, ch.ID, ch.Message)
		}
		if ch.Status == grading.StatusFail && !strings.Contains(ch.Message, "what followed rests on that deadline") {
			t.Errorf("first run: %s does not say the client gave up on a request: %s", ch.ID, ch.Message)
		}
	}
	res, err := grading.Grade(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	checkClient(t, res, grading.OutcomePassed, 14, nil, nil)
	t.Logf("after confirming: %s", res.Outcome.Detail)
	if res.Confirmed == nil || !slices.Equal(res.Confirmed.Cleared, res.Confirmed.Rerun) || len(res.Confirmed.Rerun) == 0 {
		t.Errorf("confirmed %+v: want every check that failed at first rerun and cleared", res.Confirmed)
	}
	for _, ev := range res.Transcript {
		if strings.Contains(ev.Text, "notifications/cancelled") && strings.Contains(ev.Scenario, "everyday") {
			t.Errorf("the transcript kept is the first run's, where the client gave up: %s", ev.Text)
			break
		}
	}
}
