package httpserverlesson

import (
	"fmt"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/httpprobe"
)

// judgeNameEventStream is the judge of well-formed event streams, by the
// name a catalogue's judge: line gives it.
const judgeNameEventStream = "event-stream"

// httpJudges is the kind's registry of judges.
func httpJudges() *grading.Judges {
	var r grading.Judges
	r.Handle(judgeNameEventStream, grading.Judge{What: "every event-stream answer holds data events of one JSON-RPC message each, notifications before the response, and ends after it"})
	return &r
}

// judgeStreams judges, for check (the event-stream judge's; "" drops the
// charges), every answer to a request in the run: a JSON answer is fine
// as it is, an event stream must be well formed. It returns the exchanges
// whose stream it charged, whose response the other checks then do not
// look for.
func judgeStreams(r *run, t *grading.Tally, check string) map[string]bool {
	faults := map[string]bool{}
	for _, ex := range r.sc.Exchanges {
		p := r.played[ex.Name]
		if p == nil || p.answer == nil || p.answer.Status == 0 || p.id == nil {
			continue
		}
		t.Test(check)
		if !p.answer.Stream {
			continue
		}
		if f := streamFault(p.answer, p); f != nil {
			f.Scenario = r.sc.Name
			f.Where = "exchange " + ex.Name + " (copy " + ex.Copy + ")"
			t.Fail(*f, check)
			faults[ex.Name] = true
		}
	}
	return faults
}

// streamFault says what is wrong with an event stream answering p's
// request; nil when it is well formed.
func streamFault(a *httpprobe.Answer, p *played) *grading.Failure {
	where := "exchange " + p.ex.Name
	expected := "data events of one JSON-RPC message each: notifications about the request, then its response, then the end of the stream"
	fail := func(what, actual string) *grading.Failure {
		return &grading.Failure{What: where + "'s event stream " + what, Expected: expected, Actual: grading.Clip(actual, 300)}
	}
	_, response := a.Response(p.id)
	for i, m := range a.Messages {
		if m.Text == "" {
			continue // an event with no data: a keep-alive
		}
		switch {
		case m.Value == nil:
			return fail(fmt.Sprintf("has an event (number %d) whose data is not one JSON object", i+1), m.Text)
		case m.Value["jsonrpc"] != "2.0":
			return fail(fmt.Sprintf("has an event (number %d) whose message lacks \"jsonrpc\": \"2.0\"", i+1), m.Text)
		case response >= 0 && i > response:
			return fail(fmt.Sprintf("goes on after the response, with event number %d", i+1), m.Text)
		case i == response:
		case isRequest(m.Value):
			return fail(fmt.Sprintf("carries a request of the server's own (event number %d), which a server never sends on a response stream", i+1), m.Text)
		case httpprobe.IsResponse(m.Value):
			return fail(fmt.Sprintf("carries a response to another id (event number %d)", i+1), m.Text)
		}
	}
	switch {
	case a.OpenAfterResponse:
		f := fail("stayed open after the response", "")
		f.Deadline = true
		return f
	case a.Err != nil:
		f := fail("broke off: "+a.Err.Error(), "")
		f.Deadline = a.Deadline
		return f
	case response < 0:
		return fail("ended without the response to the request's id "+string(p.id), "")
	}
	return nil
}

// isRequest reports whether a message is a request: a method and an id.
func isRequest(v map[string]any) bool {
	_, method := v["method"]
	_, id := v["id"]
	return method && id
}
