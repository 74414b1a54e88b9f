package class

import (
	"fmt"

	"github.com/mcplab/mcplab/grading"
)

// Verdict is a student's result in a few words, as the lab's progress line
// shows it when the student's grading ends: "19/21 wrong-answers", "could
// not grade: build-failed", and " (flaky)" after a flaky result.
func Verdict(s *Student) string {
	r := s.Result
	if r == nil {
		return "no result"
	}
	verdict := "could not grade: " + string(r.Outcome.Kind)
	if r.Gradable {
		verdict = fmt.Sprintf("%d/%d %s", r.Score, r.MaxScore, r.Outcome.Kind)
	}
	if r.Flaky {
		verdict += " (flaky)"
	}
	return verdict
}

// progress tells o.Progress of ev, when there is one.
func (o Options) progress(ev grading.ProgressEvent) {
	if o.Progress != nil {
		o.Progress.Progress(ev)
	}
}
