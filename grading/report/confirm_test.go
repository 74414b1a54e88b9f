package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/grading"
)

// A check cleared by the confirming rerun is named in the text report,
// with the reason: the machine was slow, not the program.
func TestTextReportSaysWhatWasConfirmed(t *testing.T) {
	res := &grading.Result{Lesson: 1, Program: "server", Gradable: true, Score: 1, MaxScore: 1,
		Outcome: grading.Outcome{Kind: grading.OutcomePassed, Detail: "Every check passed."},
		Checks: []grading.CheckResult{{ID: "lifecycle.exit-on-eof", Title: "exits", Status: grading.StatusPass, Points: 1, MaxPoints: 1,
			Message: "Passed when graded again with every deadline 4 times longer."}},
		Confirmed: &grading.Confirmation{Scale: 4, Rerun: []string{"lifecycle.exit-on-eof"}, Cleared: []string{"lifecycle.exit-on-eof"}}}
	var b bytes.Buffer
	if err := Write(&b, FormatText, res, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "Confirmed: 1 check (lifecycle.exit-on-eof) failed at first only because a deadline passed") || !strings.Contains(out, "the machine was slow, not the program") {
		t.Errorf("the text report does not say what was confirmed:\n%s", out)
	}
	var j bytes.Buffer
	if err := Write(&j, FormatJSON, res, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(j.String(), `"confirmed"`) || !strings.Contains(j.String(), `"cleared"`) {
		t.Errorf("the JSON report does not keep the confirmation:\n%s", j.String())
	}
}
