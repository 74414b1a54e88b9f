package report

import (
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
)

// The three results every format is tested with. The failing and ungradable
// ones carry hostile student text: a workflow command, a legacy one, a
// percent-encoded newline, HTML, table pipes, backtick fences, terminal
// escapes, a carriage return, a bidi override and invalid UTF-8.

func checks() []grading.CheckResult {
	return []grading.CheckResult{
		{ID: "framing.split", Title: "answers a request split over chunks", Status: grading.StatusPass, Points: 2, MaxPoints: 2},
		{ID: "errors.parse", Title: "answers a line that is not JSON with -32700 and id null", Status: grading.StatusPass, Points: 2, MaxPoints: 2},
		{ID: "ids.exact", Title: "copies each id exactly, number or text", Status: grading.StatusPass, Points: 2, MaxPoints: 2},
		{ID: "notifications.silent", Title: "sends nothing for a notification", Status: grading.StatusPass, Points: 1, MaxPoints: 1},
		{ID: "stdout.messages-only", Title: "writes only messages to stdout", Status: grading.StatusPass, Points: 2, MaxPoints: 2},
		{ID: "lifecycle.exit-on-eof", Title: "exits when stdin closes", Status: grading.StatusPass, Points: 1, MaxPoints: 1},
	}
}

func passing() *grading.Result {
	seed := int64(42)
	return &grading.Result{
		Lesson:   1,
		Gradable: true,
		Score:    10,
		MaxScore: 10,
		Outcome:  grading.Outcome{Kind: grading.OutcomePassed, Detail: "every check passed"},
		Checks:   checks(),
		Transcript: []grading.Event{
			{Scenario: "chunks", Record: event.Record{At: 0, Kind: event.Stderr, Text: "log: ready"}},
			{Scenario: "chunks", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Send, Text: `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id`}},
			{Scenario: "chunks", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Answer, Text: `{"jsonrpc":"2.0","id":1,"result":{}}`}},
			{Scenario: "chunks", Record: event.Record{At: 4 * time.Millisecond, Kind: event.Send, Text: `":"b","method":"ping"}` + "\n"}},
			{Scenario: "chunks", Record: event.Record{At: 6 * time.Millisecond, Kind: event.Answer, Text: `{"jsonrpc":"2.0","id":"b","result":{}}`}},
			{Scenario: "chunks", Record: event.Record{At: 7 * time.Millisecond, Kind: event.Close}},
			{Scenario: "chunks", Record: event.Record{At: 9 * time.Millisecond, Kind: event.Exit, Text: "status 0"}},
			{Scenario: "bad-lines", Record: event.Record{At: 0, Kind: event.Send, Text: "not json at all\n"}},
			{Scenario: "bad-lines", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Answer, Text: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`}},
			{Scenario: "bad-lines", Record: event.Record{At: 3 * time.Millisecond, Kind: event.Close}},
			{Scenario: "bad-lines", Record: event.Record{At: 4 * time.Millisecond, Kind: event.Exit, Text: "status 0"}},
		},
		Cuts:       &seed,
		Submission: &grading.Submission{Name: "alice", Commit: "0123456789abcdef0123456789abcdef01234567"},
		DurationMS: 1234,
	}
}

// nasty is student text that tries every trick at once.
const nasty = "::error::pwned <script>alert(1)</script> ]]> a|b `x` ```` \x1b[31mred\x1b[0m %0A::warning::enc \xff\xfe"

func failing() *grading.Result {
	seed := int64(7)
	cs := checks()
	cs[1].Status = grading.StatusFail
	cs[1].Points = 0
	cs[1].Message = "The server answered the line \"not json at all\" with something that is not a Parse error. A line that is not JSON gets error -32700 with id null (JSON-RPC 2.0, section 5.1). Catch the parse failure and answer it."
	cs[1].Expected = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	cs[1].Actual = nasty + "\n  ::error::second line"
	cs[1].Rule = "JSON-RPC 2.0 §5.1: parse error"
	cs[1].Fix = "catch the JSON parse error and answer -32700 with id null"
	cs[5].Status = grading.StatusSkip
	cs[5].Points = 0
	cs[5].Message = "Not judged: the grader never closed stdin because an earlier step timed out."
	return &grading.Result{
		Lesson:   1,
		Gradable: true,
		Score:    7,
		MaxScore: 10,
		Outcome:  grading.Outcome{Kind: grading.OutcomeWrongAnswers, Detail: "1 answer was wrong: errors.parse"},
		Checks:   cs,
		Transcript: []grading.Event{
			{Scenario: "bad-lines", Record: event.Record{At: 0, Kind: event.Stderr, Text: "::error::pwned"}},
			{Scenario: "bad-lines", Record: event.Record{At: 0, Kind: event.Stderr, Text: "   ::warning title=x::indented"}},
			{Scenario: "bad-lines", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Stderr, Text: "text before ##[error]legacy command"}},
			{Scenario: "bad-lines", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Stderr, Text: "cr\r::error::after a carriage return"}},
			{Scenario: "bad-lines", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Stderr, Text: "bidi \u202eevil\u202c and C1 \u009b31m"}},
			{Scenario: "bad-lines", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Send, Text: "not json at all\n"}},
			{Scenario: "bad-lines", Record: event.Record{At: 5 * time.Millisecond, Kind: event.Answer, Text: nasty}},
			{Scenario: "bad-lines", Record: event.Record{At: 6 * time.Millisecond, Kind: event.Stderr, Text: "# heading | cell ~~strike~~ *bold* [link](http://evil.example) www.evil.example & <b>"}},
			{Scenario: "bad-lines", Record: event.Record{At: 7 * time.Millisecond, Kind: event.Note, Text: "no answer to id 2 within 2s; said \"hi\"; #tag", Deadline: true}},
			{Scenario: "bad-lines", Record: event.Record{At: 2007 * time.Millisecond, Kind: event.Exit, Text: "status 0"}},
		},
		Cuts:       &seed,
		Flaky:      true,
		DurationMS: 2050,
	}
}

func ungradable() *grading.Result {
	cs := checks()
	for i := range cs {
		cs[i].Status = grading.StatusSkip
		cs[i].Points = 0
		cs[i].Message = "Not judged: the server exited before it answered."
	}
	return &grading.Result{
		Lesson:   1,
		Gradable: false,
		Problem:  "The server exited with status 2 while id 1 was still waiting for its answer; it printed ::error::pwned \x1b[2J to stderr. Run it by hand and read its stderr.",
		Score:    0,
		MaxScore: 10,
		Outcome:  grading.Outcome{Kind: grading.OutcomeExited, Detail: "exit status 2"},
		Checks:   cs,
		Transcript: []grading.Event{
			{Scenario: "chunks", Record: event.Record{At: 0, Kind: event.Send, Text: `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"}},
			{Scenario: "chunks", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Stderr, Text: "panic: <script>alert(1)</script>"}},
			{Scenario: "chunks", Record: event.Record{At: 1 * time.Millisecond, Kind: event.Stderr, Text: "::error::pwned"}},
			{Scenario: "chunks", Record: event.Record{At: 2 * time.Millisecond, Kind: event.Exit, Text: "status 2"}},
		},
		DurationMS: 15,
	}
}
