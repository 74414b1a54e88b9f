package httpserverlesson

import (
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/httpprobe"
	"github.com/mcplab/mcplab/lab/httpscenario"
)

// judgeRun judges one scenario's exchanges into t: first the event-stream
// judge (its check is served by streamCheck), then each expect line. One
// fault is charged to one check: a test that needs the response of an
// exchange whose answer is already charged elsewhere (to the stream
// judge, or to another line of the exchange that asks for the response)
// is not judged there, and a line whose exchange was not played is not
// judged at all. Why a line was not judged is returned by check, not put
// in t: it keeps the check from passing only when nothing else judged it
// (see softSkips), so that no check's evidence is hidden behind a fault
// charged elsewhere.
func judgeRun(r *run, t *grading.Tally, streamCheck string) map[string][]string {
	soft := map[string][]string{}
	streamFaults := judgeStreams(r, t, streamCheck)
	failed := map[string]bool{} // exchange names with a failed line
	verdicts := make([]*grading.Failure, len(r.sc.Expect))
	skips := make([]string, len(r.sc.Expect))
	for i, e := range r.sc.Expect {
		if e.Kind == httpscenario.KindNeeds {
			continue
		}
		p := r.played[e.Exchange]
		if why := notJudged(r, p, e, streamFaults); why != "" {
			skips[i] = why
			failed[e.Exchange] = true
			continue
		}
		verdicts[i] = test(r.sc.Name, p, e)
		if verdicts[i] != nil {
			failed[e.Exchange] = true
		}
	}
	// An exchange is one piece of evidence for a check: its first failed
	// line is charged, the check's other lines there add nothing.
	charged := map[[2]string]bool{}
	for i, e := range r.sc.Expect {
		key := [2]string{e.Exchange, e.Check}
		switch {
		case e.Kind == httpscenario.KindNeeds:
			continue
		case needsFailed(r.sc, e, failed) != "":
			soft[e.Check] = append(soft[e.Check], needsFailed(r.sc, e, failed))
		case skips[i] != "":
			soft[e.Check] = append(soft[e.Check], skips[i])
		case verdicts[i] != nil && !charged[key]:
			charged[key] = true
			t.Fail(*verdicts[i], e.Check)
		default:
			t.Test(e.Check)
		}
	}
	return soft
}

// softSkips puts into t why the checks no evidence judged could not be
// judged: a check judged somewhere keeps its verdict.
func softSkips(t *grading.Tally, soft []map[string][]string) {
	for _, m := range soft {
		for check, why := range m {
			if !t.Tested[check] {
				for _, w := range why {
					t.Skip(w, check)
				}
			}
		}
	}
}

// needsFailed says why line e is not judged because an exchange its
// check needs on e's exchange did not hold; "" when it is judged.
func needsFailed(sc *httpscenario.Scenario, e *httpscenario.Expectation, failed map[string]bool) string {
	for _, n := range sc.Expect {
		if n.Kind == httpscenario.KindNeeds && n.Exchange == e.Exchange && n.Check == e.Check && failed[n.Other] {
			return fmt.Sprintf("in scenario %s, exchange %s did not give what it should, so exchange %s, which asks the other copy the same, proves nothing about this check (the fault is charged where exchange %s is)", sc.Name, n.Other, e.Exchange, n.Other)
		}
	}
	return ""
}

// notJudged says why line e cannot be judged on what p gave; "" when it can.
func notJudged(r *run, p *played, e *httpscenario.Expectation, streamFaults map[string]bool) string {
	switch {
	case p.notPlayed != "":
		return fmt.Sprintf("in scenario %s, exchange %s was not played: %s", r.sc.Name, e.Exchange, p.notPlayed)
	case e.Kind != httpscenario.KindResponse && e.Kind != httpscenario.KindAnswer:
		return ""
	case p.answer == nil || p.answer.Status == 0:
		if e.Kind == httpscenario.KindAnswer && asksResponse(r.sc, e) {
			return fmt.Sprintf("in scenario %s, exchange %s got no answer to read (charged to the check that asks for its response)", r.sc.Name, e.Exchange)
		}
		return ""
	}
	if _, i := p.answer.Response(p.id); i >= 0 {
		return ""
	}
	if streamFaults[e.Exchange] {
		return fmt.Sprintf("in scenario %s, the event stream answering exchange %s is charged to the check of event streams", r.sc.Name, e.Exchange)
	}
	if e.Kind == httpscenario.KindAnswer && asksResponse(r.sc, e) {
		return fmt.Sprintf("in scenario %s, exchange %s's answer carries no response to test (charged to the check that asks for it)", r.sc.Name, e.Exchange)
	}
	return ""
}

// asksResponse reports whether another check than e's asks, on e's
// exchange, for a response: that check is charged with a missing one.
func asksResponse(sc *httpscenario.Scenario, e *httpscenario.Expectation) bool {
	for _, o := range sc.Expect {
		if o.Exchange == e.Exchange && o.Kind == httpscenario.KindResponse && o.Check != e.Check {
			return true
		}
	}
	return false
}

// test applies one expect line to what its exchange gave: nil when it
// holds.
func test(scenario string, p *played, e *httpscenario.Expectation) *grading.Failure {
	where := "exchange " + e.Exchange + " (copy " + p.ex.Copy + ")"
	if e.Kind == httpscenario.KindExit {
		return testExit(scenario, where, p, e)
	}
	a := p.answer
	f := &grading.Failure{Scenario: scenario, Where: where}
	if a.Status == 0 {
		f.What = fmt.Sprintf("%s got no answer: %v", where, a.Err)
		if p.gone != "" {
			f.What += "; " + p.gone
		}
		f.Expected, f.Deadline = expected(e), a.Deadline
		return f
	}
	got := answerShown(a)
	switch e.Kind {
	case httpscenario.KindStatus:
		if e.StatusMatches(a.Status) {
			return nil
		}
		f.What = fmt.Sprintf("%s was answered %s", where, statusText(a.Status))
	case httpscenario.KindJSONOrStream:
		if a.MediaType == "application/json" || a.MediaType == "text/event-stream" {
			return nil
		}
		f.What = fmt.Sprintf("%s was answered with Content-Type %q, which is neither application/json nor text/event-stream", where, a.ContentType)
	case httpscenario.KindResponse:
		if _, i := a.Response(p.id); i >= 0 {
			return nil
		}
		f.What = fmt.Sprintf("%s's answer carries no JSON-RPC response with the request's id %s", where, p.id)
	case httpscenario.KindAnswer:
		m, i := a.Response(p.id)
		if i < 0 {
			f.What = fmt.Sprintf("%s's answer carries no JSON-RPC response with the request's id %s to test", where, p.id)
			break
		}
		bad := grading.TestAnswerPath(e.Answer, grading.AnswerLine{Text: m.Text, Value: m.Value, Size: int64(len(m.Text))})
		if bad == nil {
			return nil
		}
		bad.Scenario, bad.Where = scenario, where
		bad.What = where + ": " + bad.What
		return bad
	case httpscenario.KindNotification:
		if (a.Status == 202 && len(a.Body) == 0 && !a.Stream) || a.Status/100 == 4 {
			return nil
		}
		f.What = fmt.Sprintf("the notification of %s was answered %s", where, statusText(a.Status))
		if len(a.Body) > 0 || a.Stream {
			f.What += " with a body"
		}
	case httpscenario.KindNotStream:
		if !a.Stream {
			return nil
		}
		f.What = fmt.Sprintf("%s, whose Accept lists only application/json, was answered with an event stream", where)
	}
	f.Expected, f.Actual = expected(e), got
	return f
}

// testExit judges a SIGTERM exchange.
func testExit(scenario, where string, p *played, e *httpscenario.Expectation) *grading.Failure {
	f := &grading.Failure{Scenario: scenario, Where: where, Expected: expected(e)}
	switch {
	case !p.exited:
		f.What = fmt.Sprintf("copy %s was still running %v after the grader sent it SIGTERM", p.ex.Copy, p.exitWait.Round(1e6))
		f.Deadline = true
	case p.exit.Code == e.Code && p.exit.ByItself():
		return nil
	case p.exit.Signal != "":
		f.What = fmt.Sprintf("after SIGTERM, copy %s %s: the system's default for SIGTERM, since the server does not catch it", p.ex.Copy, p.exit)
	default:
		f.What = fmt.Sprintf("after SIGTERM, copy %s %s", p.ex.Copy, p.exit)
	}
	return f
}

// expected says in words what line e asks for.
func expected(e *httpscenario.Expectation) string {
	switch e.Kind {
	case httpscenario.KindStatus:
		return "status " + e.StatusWords()
	case httpscenario.KindResponse:
		return "a JSON-RPC response with the request's id, as the body or in the event stream"
	case httpscenario.KindJSONOrStream:
		return "Content-Type: application/json, or text/event-stream"
	case httpscenario.KindAnswer:
		return strings.Join(strings.Fields(e.Text)[3:], " ")
	case httpscenario.KindNotification:
		return "202 Accepted with an empty body (or a 4xx refusal)"
	case httpscenario.KindNotStream:
		return "an application/json answer (or 406 Not Acceptable), not text/event-stream"
	case httpscenario.KindExit:
		return fmt.Sprintf("exit with status %d soon after SIGTERM", e.Code)
	}
	return e.Text
}

// answerShown is an answer as a failure shows it: its status, content type
// and first message.
func answerShown(a *httpprobe.Answer) string {
	s := statusText(a.Status)
	if a.ContentType != "" {
		s += ", Content-Type: " + a.ContentType
	}
	switch {
	case len(a.Messages) > 0:
		s += ", " + grading.Clip(a.Messages[0].Text, 300)
	case len(a.Body) > 0:
		s += ", " + grading.Clip(string(a.Body), 300)
	default:
		s += ", no body"
	}
	return s
}
