package class

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// digits matches a run of decimal digits.
var digits = regexp.MustCompile(`[0-9]+`)

// sameTranscript reports whether a server lesson's run is the reference
// server's. Only what the server's own behaviour decides is compared, each
// stream on its own, scenario by scenario:
//
//   - its answers, as a multiset of exact lines: the answer to each request
//     id, whatever the order in which concurrent handlers wrote them;
//   - its exit, numbers aside;
//   - its log lines (stderr), as a multiset, numbers aside (ids, times, and
//     the count of requests in flight when its input closed), when the
//     server ended by itself. A server ended by a signal (the grader stops
//     it where a scenario ends) may have its last log lines cut: whether
//     they were written, or crossed a container's attach stream, before the
//     kill depends on the machine's load, so that scenario's log is left out.
//
// How the streams interleave, and when a log line arrived relative to the
// grader closing stdin, are left out: both vary with timing. What the
// grader sent and noted is left out too; it is the same for any server
// that answers alike. A run with no answer, or a client lesson's (see
// sameClientRun), is never the same.
func sameTranscript(student, reference []grading.Event) bool {
	a, b := serverSide(student), serverSide(reference)
	return a != nil && slices.Equal(a, b)
}

// serverSide is what sameTranscript compares of a run: one sorted line per
// answer, exit and counted log line, each keyed by its scenario and kind.
// It is nil for a run with no answer, or with messages to servers (a
// client lesson's).
func serverSide(events []grading.Event) []string {
	signalled := map[string]bool{} // scenarios whose server was ended by a signal
	for _, e := range events {
		switch e.TranscriptKind() {
		case event.ToServer:
			return nil
		case event.Exit:
			if strings.HasPrefix(e.Text, "was ended by signal") {
				signalled[e.Scenario] = true
			}
		}
	}
	var out []string
	answered := false
	for _, e := range events {
		text := e.Text
		switch e.TranscriptKind() {
		case event.Answer:
			answered = true
		case event.Stderr:
			if signalled[e.Scenario] {
				continue
			}
			text = digits.ReplaceAllString(text, "N")
		case event.Exit:
			text = digits.ReplaceAllString(text, "N")
		default:
			continue
		}
		out = append(out, e.Scenario+"\x00"+string(e.Kind)+"\x00"+text)
	}
	if !answered {
		return nil
	}
	slices.Sort(out)
	return out
}
