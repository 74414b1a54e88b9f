package serverlesson_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/lab/proc"
)

// TestAServerThatReadsNothingIsConfirmedInOneScenario grades, as lab
// grade does, a server that says it is ready and then never reads its
// stdin: every scenario of the first run fails on the read deadline, and
// since the server read none of any of them, the rerun at four times the
// deadlines stops at the first scenario it again reads none of, and
// charges every failure, instead of playing all eleven once more.
func TestAServerThatReadsNothingIsConfirmedInOneScenario(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var played []string
	opts := grading.Options{Kinds: grading.NewKinds(serverlesson.Kind{}), Student: proc.Command{Path: bin(t, "student"), Args: []string{"-mistake", "hang"}},
		Progress: grading.ProgressFunc(func(ev grading.ProgressEvent) {
			if ev.Kind == grading.ProgressScenarioStarted {
				mu.Lock()
				played = append(played, ev.Name)
				mu.Unlock()
			}
		})}
	res, err := grading.Grade(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	failed := []string{"errors.parse", "errors.invalid-request", "methods.wait", "methods.unknown", "answers.once", "order.concurrent",
		"lifecycle.exit-on-eof", "ids.string-or-integer", "methods.wait-params"}
	check(t, res, wantGrade{grading.OutcomeTimeout, failed, 1,
		[]string{"framing.split-message", "framing.many-per-chunk", "notifications.silent", "ids.exact", "stdout.messages-only"}})
	if res.Confirmed == nil || !slices.Equal(res.Confirmed.Rerun, failed) || len(res.Confirmed.Cleared) != 0 {
		t.Errorf("confirmed %+v: want every failure rerun and none cleared", res.Confirmed)
	}
	// The first run plays each scenario once; the rerun, one of them.
	once := slices.Clone(played)
	slices.Sort(once)
	if once = slices.Compact(once); len(once) < 2 || len(played) != len(once)+1 {
		t.Errorf("played %s: want each of the lesson's scenarios once, then one in the rerun", strings.Join(played, " "))
	}
	if !strings.Contains(res.Outcome.Detail, "again read none of its stdin") {
		t.Errorf("the outcome does not say why the rerun stopped: %s", res.Outcome.Detail)
	}
}
