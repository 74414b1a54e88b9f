package serverlesson

import "github.com/mcplab/mcplab/grading"

// The derived checks that the grader knows how to judge.
const (
	checkSplitMessage = "framing.split-message"
	checkManyPerChunk = "framing.many-per-chunk"
	checkIDsExact     = "ids.exact"
	checkAnswersOnce  = "answers.once"
	checkSilent       = "notifications.silent"
	checkMessagesOnly = "stdout.messages-only"
	checkStderrLogs   = "stderr.logs"
	checkExitOnEOF    = "lifecycle.exit-on-eof"
)

// taggable reports whether scenarios may tag expected answers with a check.
// The checks judged from the traffic alone may not be tagged: a wrong answer
// would then count against a check that does not judge answers (a framing
// check failing for a wrong error code). answers.once may: it is the check
// an expected answer with no other rule belongs to.
func taggable(c grading.Check) bool {
	return !c.Derived || c.ID == checkAnswersOnce
}
