package class

import (
	"regexp"
	"slices"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// count matches a run of decimal digits and, where a word follows it, that
// word without a plural s: "1 request" and "3 requests" are one count of
// one thing, numbers aside, as a server's grammar makes them.
var count = regexp.MustCompile(`[0-9]+( [A-Za-z]+?)?s?\b`)

// numbersAside is text with every count in it written "N", its word in the
// singular.
func numbersAside(text string) string {
	return count.ReplaceAllString(text, "N$1")
}

// sameTranscript reports whether a server lesson's run is the reference
// server's. Only what the server's own behaviour decides is compared, each
// stream on its own, scenario by scenario:
//
//   - its answers, as a multiset of exact lines: the answer to each request
//     id, whatever the order in which concurrent handlers wrote them;
//   - its exit, numbers aside;
//   - its log lines (stderr), as a multiset, numbers aside (ids, times, and
//     the count of requests in flight when its input closed, and the
//     plural its grammar gives that count), when the
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
			text = numbersAside(text)
		case event.Exit:
			text = numbersAside(text)
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
