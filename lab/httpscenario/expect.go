package httpscenario

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcplab/mcplab/lab/answerpath"
)

// Expectation is one line of a scenario's expect file: what one
// exchange's answer must show, and the check it tells about.
//
//	EXCHANGE CHECK status 200            the status (4xx: any 400 to 499; several: any of them)
//	EXCHANGE CHECK response              a response with the request's id, in the answer's body or stream
//	EXCHANGE CHECK json-or-stream        the answer's Content-Type is application/json or text/event-stream
//	EXCHANGE CHECK answer PATH OP VALUE  a test of that response (the paths and tests of client scenarios)
//	EXCHANGE CHECK notification-accepted 202 with no body, or a 4xx refusal
//	EXCHANGE CHECK not-stream            the answer is not an event stream
//	EXCHANGE CHECK exit 0                after SIGTERM, the copy exits with this status in time
//	EXCHANGE CHECK needs OTHER           judge the line's check here only if OTHER's lines all held
type Expectation struct {
	Line     int
	Exchange string
	Check    string
	// Kind is status, response, json-or-stream, answer,
	// notification-accepted, not-stream, exit or needs.
	Kind string
	// Statuses are a status test's codes; a code below 10 is a class
	// (4 for 4xx).
	Statuses []int
	// Answer is an answer test, in the answer-path language of every
	// lesson's expect lines (lab/answerpath).
	Answer answerpath.Test
	// Code is an exit test's status.
	Code int
	// Other is the exchange a needs line names.
	Other string
	// Text is the line as written, for messages.
	Text string
}

// The kinds of expectation.
const (
	KindStatus       = "status"
	KindResponse     = "response"
	KindJSONOrStream = "json-or-stream"
	KindAnswer       = "answer"
	KindNotification = "notification-accepted"
	KindNotStream    = "not-stream"
	KindExit         = "exit"
	KindNeeds        = "needs"
)

func parseExpectation(line string, exchanges map[string]*Exchange) (*Expectation, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return nil, fmt.Errorf("%q: want EXCHANGE CHECK TEST ...", line)
	}
	e := &Expectation{Exchange: f[0], Check: f[1], Kind: f[2], Text: line}
	ex := exchanges[e.Exchange]
	if ex == nil {
		return nil, fmt.Errorf("%q: no exchange named %s", line, e.Exchange)
	}
	if !validCheckID(e.Check) {
		return nil, fmt.Errorf("%q: %q is not a check id (lower case words joined by dots)", line, e.Check)
	}
	args := f[3:]
	if ex.Terminate != (e.Kind == KindExit) && e.Kind != KindNeeds {
		if ex.Terminate {
			return nil, fmt.Errorf("%q: exchange %s sends SIGTERM, which only an exit test can judge", line, e.Exchange)
		}
		return nil, fmt.Errorf("%q: an exit test needs an exchange that sends SIGTERM", line)
	}
	switch e.Kind {
	case KindStatus:
		if len(args) == 0 {
			return nil, fmt.Errorf("%q: status takes one or more codes (200, 4xx)", line)
		}
		for _, a := range args {
			n, err := parseStatus(a)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			e.Statuses = append(e.Statuses, n)
		}
	case KindResponse, KindJSONOrStream, KindNotification, KindNotStream:
		if len(args) != 0 {
			return nil, fmt.Errorf("%q: %s takes nothing more", line, e.Kind)
		}
		if e.Kind == KindResponse && ID(ex.Request.Body) == nil {
			return nil, fmt.Errorf("%q: exchange %s's body has no id to find a response by", line, e.Exchange)
		}
	case KindAnswer:
		if ID(ex.Request.Body) == nil {
			return nil, fmt.Errorf("%q: exchange %s's body has no id to find a response by", line, e.Exchange)
		}
		rest := strings.TrimSpace(line[strings.Index(line, " answer ")+len(" answer "):])
		a, err := answerpath.ParseTest(rest)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		e.Answer = a
	case KindExit:
		n, err := strconv.Atoi(strings.Join(args, " "))
		if err != nil || n < 0 || n > 255 {
			return nil, fmt.Errorf("%q: exit takes one status, 0 to 255", line)
		}
		e.Code = n
	case KindNeeds:
		if len(args) != 1 || exchanges[args[0]] == nil || args[0] == e.Exchange {
			return nil, fmt.Errorf("%q: needs takes one other exchange of the scenario", line)
		}
		e.Other = args[0]
	default:
		return nil, fmt.Errorf("%q: unknown test %q (want status, response, json-or-stream, answer, notification-accepted, not-stream, exit, needs)", line, e.Kind)
	}
	return e, nil
}

// parseStatus reads a status code (100 to 599) or a class (4xx).
func parseStatus(s string) (int, error) {
	if len(s) == 3 && strings.HasSuffix(s, "xx") && s[0] >= '1' && s[0] <= '5' {
		return int(s[0] - '0'), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n > 599 {
		return 0, fmt.Errorf("%q is not a status (100 to 599, or a class such as 4xx)", s)
	}
	return n, nil
}

// StatusMatches reports whether an answer's status is one of the
// expectation's.
func (e *Expectation) StatusMatches(status int) bool {
	for _, s := range e.Statuses {
		if s == status || (s < 10 && status/100 == s) {
			return true
		}
	}
	return false
}

// StatusWords says the statuses expected: "400", "202 or 4xx".
func (e *Expectation) StatusWords() string {
	var w []string
	for _, s := range e.Statuses {
		if s < 10 {
			w = append(w, fmt.Sprintf("%dxx", s))
		} else {
			w = append(w, strconv.Itoa(s))
		}
	}
	return strings.Join(w, " or ")
}

func validCheckID(s string) bool {
	if s == "" || !strings.Contains(s, ".") {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
