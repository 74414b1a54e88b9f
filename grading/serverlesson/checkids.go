package serverlesson

import "github.com/mcplab/mcplab/grading"

// The server kind's judges, by the names a catalogue's "judge:" lines give
// them (lessons/README.md lists them). The checks they serve are the
// lesson's: a judge asks the catalogue for its check (see served).
const (
	judgeNameMessagesOnly = "messages-only"
	judgeNameSplitMessage = "split-message"
	judgeNameManyPerChunk = "many-per-chunk"
	judgeNameIDsExact     = "ids-exact"
	judgeNameAnswersOnce  = "answers-once"
	judgeNameSilent       = "notifications-silent"
	judgeNameExitOnEOF    = "exit-on-eof"
	judgeNameStderrLogs   = "stderr-logs"
)

// serverJudges is the server kind's registry of judges. Each judges one
// check of a lesson and takes no parameters. answers-once's check may be
// tagged: it is the check an expected answer with no other rule belongs
// to. The others may not: a wrong answer would then count against a check
// that does not judge answers (a framing check failing for a wrong error
// code).
func serverJudges() *grading.Judges {
	var r grading.Judges
	r.Handle(judgeNameMessagesOnly, grading.Judge{What: "every stdout line is a JSON-RPC response object"})
	r.Handle(judgeNameSplitMessage, grading.Judge{What: "a line cut across writes gets an answer of its own"})
	r.Handle(judgeNameManyPerChunk, grading.Judge{What: "each line of a write holding several gets an answer of its own"})
	r.Handle(judgeNameIDsExact, grading.Judge{What: "every answer carries its request's id, of the same JSON type"})
	r.Handle(judgeNameAnswersOnce, grading.Judge{Taggable: true, What: "one answer per request, none to no line, none missing at close"})
	r.Handle(judgeNameSilent, grading.Judge{What: "no answer to a notification"})
	r.Handle(judgeNameExitOnEOF, grading.Judge{What: "exit with status 0 soon after stdin closes"})
	r.Handle(judgeNameStderrLogs, grading.Judge{What: "something on stderr in some scenario"})
	return &r
}

// served is, for one lesson, the id of the check of its catalogue each
// judge serves: "" for a judge the catalogue names for no check, whose
// charges the tally drops.
type served struct {
	messagesOnly, splitMessage, manyPerChunk, idsExact, answersOnce, silent, exitOnEOF, stderrLogs string
}

// servedBy finds in a catalogue the check each judge serves.
func servedBy(checks []grading.Check) served {
	return served{
		messagesOnly: grading.Served(checks, judgeNameMessagesOnly),
		splitMessage: grading.Served(checks, judgeNameSplitMessage),
		manyPerChunk: grading.Served(checks, judgeNameManyPerChunk),
		idsExact:     grading.Served(checks, judgeNameIDsExact),
		answersOnce:  grading.Served(checks, judgeNameAnswersOnce),
		silent:       grading.Served(checks, judgeNameSilent),
		exitOnEOF:    grading.Served(checks, judgeNameExitOnEOF),
		stderrLogs:   grading.Served(checks, judgeNameStderrLogs),
	}
}

// framed reports whether the lesson judges framing: only then are lines
// lost to framing charged to a framing check alone.
func (s served) framed() bool { return s.splitMessage != "" || s.manyPerChunk != "" }
