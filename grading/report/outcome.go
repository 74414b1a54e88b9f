package report

import (
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/timeline"
)

// outcomeMeaning says in words what an outcome means, for the program the
// lesson grades (see programOf).
func outcomeMeaning(r *grading.Result) string {
	program := programOf(r)
	switch r.Outcome.Kind {
	case grading.OutcomePassed:
		return "every check passed"
	case grading.OutcomeWrongAnswers:
		return "some answers were wrong or missing"
	case grading.OutcomeProtocolViolation:
		return "the " + program + " wrote something to stdout that is not a JSON-RPC message"
	case grading.OutcomeExited:
		return "the " + program + " ended before the grader was done"
	case grading.OutcomeTimeout:
		return "the " + program + " stopped answering, and the grader's wait ran out"
	case grading.OutcomeOutputCap:
		return "the " + program + " wrote more than the grader keeps"
	case grading.OutcomeMemory:
		return "the sandbox stopped the " + program + " for using too much memory"
	case grading.OutcomeCouldNotStart:
		return "the command could not be started"
	case grading.OutcomeBuildFailed:
		return "the submission's build step failed"
	}
	return "the run ended this way"
}

// outcomeLine is "timeout (the server stopped answering, and the grader's
// wait ran out; 11 checks failed)": the outcome, what it means, and how many
// checks failed, so that a report of failed checks is never headed by a
// bare word.
func outcomeLine(r *grading.Result) string {
	s := fmt.Sprintf("%s (%s", r.Outcome.Kind, outcomeMeaning(r))
	if n := count(r).fail; n > 0 && r.Outcome.Kind != grading.OutcomeWrongAnswers {
		s += "; " + checksFailed(n)
	} else if n > 0 {
		s += ": " + checksFailed(n)
	}
	return s + ")"
}

// checksFailed is "1 check failed" or "11 checks failed".
func checksFailed(n int) string {
	if n == 1 {
		return "1 check failed"
	}
	return fmt.Sprintf("%d checks failed", n)
}

// outcomeDetailAdds reports whether a graded run's outcome detail says more
// than the outcome line: not for a pass, not for wrong answers (the detail
// lists the failed checks the report shows), and not when it only repeats
// what the outcome means.
func outcomeDetailAdds(r *grading.Result) bool {
	switch {
	case r.Outcome.Detail == "", r.Outcome.Kind == grading.OutcomePassed, r.Outcome.Kind == grading.OutcomeWrongAnswers:
		return false
	}
	return !strings.EqualFold(strings.TrimSuffix(strings.TrimSpace(r.Outcome.Detail), "."), outcomeMeaning(r))
}

// programOf is what the result's student wrote: r.Program, or for a result
// that has none (a results file written before the field existed), what
// its transcript shows: a client's, with the servers the grader played, or
// else a server's, the only two kinds such a file can hold.
func programOf(r *grading.Result) string {
	switch {
	case r.Program != "":
		return r.Program
	case timeline.ClientTranscript(r.Transcript):
		return "client"
	}
	return "server"
}
