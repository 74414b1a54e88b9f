package class

import (
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// TestSameTranscriptStreams: two runs of one server whose streams
// interleave otherwise, whose concurrent answers and log lines fell in
// another order, whose log lines came before or after the grader closed
// stdin, and whose log lines were cut where the grader killed it, are the
// same run; one other answer byte, one other log line where it ended by
// itself, or another exit is not.
func TestSameTranscriptStreams(t *testing.T) {
	ev := func(sc string, kind event.Kind, text string) grading.Event {
		return grading.Event{Scenario: sc, Record: event.Record{Kind: kind, Text: text}}
	}
	a := []grading.Event{
		ev("01", event.Send, `{"id":1}`),
		ev("01", event.Stderr, "log: ready"),
		ev("01", event.Stderr, "log: got wait id=1"),
		ev("01", event.Stderr, "log: got ping id=2"),
		ev("01", event.Answer, `{"id":2,"result":{}}`),
		ev("01", event.Answer, `{"id":1,"result":{"waited":80}}`),
		ev("01", event.Close, "stdin closed"),
		ev("01", event.Stderr, "log: input closed; answering the 0 requests still in flight, then exiting"),
		ev("01", event.Exit, "exited with status 0"),
		ev("02", event.Stderr, "log: ready"),
		ev("02", event.Stderr, "log: got wait id=2"),
		ev("02", event.Answer, `{"id":2,"result":{"waited":0}}`),
		ev("02", event.Note, "the scenario ends here; the client stopped the server"),
		ev("02", event.Exit, "was ended by signal killed"),
	}
	b := []grading.Event{
		ev("01", event.Stderr, "log: ready"),
		ev("01", event.Send, `{"id":1}`),
		ev("01", event.Answer, `{"id":1,"result":{"waited":80}}`),
		ev("01", event.Stderr, "log: got ping id=2"),
		ev("01", event.Answer, `{"id":2,"result":{}}`),
		ev("01", event.Close, "stdin closed"),
		ev("01", event.Stderr, "log: got wait id=1"), // read after the close, under load
		ev("01", event.Stderr, "log: input closed; answering the 1 request still in flight, then exiting"),
		ev("01", event.Exit, "exited with status 0"),
		ev("02", event.Answer, `{"id":2,"result":{"waited":0}}`),
		ev("02", event.Exit, "was ended by signal killed"), // its log cut by the kill
	}
	if !sameTranscript(a, b) {
		t.Errorf("two runs of one server, timed otherwise, are not the same run:\n%q\n%q", serverSide(a), serverSide(b))
	}
	change := func(i int, text string) []grading.Event {
		c := append([]grading.Event(nil), b...)
		c[i].Text = text
		return c
	}
	for name, c := range map[string][]grading.Event{
		"another answer":                      change(2, `{"id":1,"result":{"waited":81}}`),
		"another log line, ended by itself":   change(3, "log: got ping id=2 (verbose)"),
		"another exit":                        change(8, "was ended by signal killed"),
		"a lost answer":                       append(append([]grading.Event(nil), b[:2]...), b[3:]...),
		"another answer where it was stopped": change(9, `{"id":2,"result":{"waited":1}}`),
	} {
		if sameTranscript(a, c) {
			t.Errorf("%s: the same run as the reference:\n%q\n%q", name, serverSide(a), serverSide(c))
		}
	}
	if sameTranscript(a[9:10], a[9:10]) || sameTranscript(nil, nil) {
		t.Errorf("a run with no answer is the same as the reference")
	}
	client := append([]grading.Event{ev("01", event.ToServer, `notes#1 {"id":1}`)}, a...)
	if sameTranscript(client, client) {
		t.Errorf("a client lesson's run is compared as a server's")
	}
}
