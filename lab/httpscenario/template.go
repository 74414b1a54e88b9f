package httpscenario

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcplab/mcplab/lab/answerpath"
	"github.com/mcplab/mcplab/lab/httpprobe"
)

// template is one {{...}} of a request.
type template struct {
	text string // as written, braces included
	kind string // port, answer, pad
	args []string
}

var templateRE = regexp.MustCompile(`\{\{[^{}]*\}\}`)

// templates lists the request's templates, in its header values and body.
func (e *Exchange) templates() []template {
	var out []template
	scan := func(s string) {
		for _, m := range templateRE.FindAllString(s, -1) {
			f := strings.Fields(strings.Trim(m, "{}"))
			t := template{text: m}
			if len(f) > 0 {
				t.kind, t.args = f[0], f[1:]
			}
			out = append(out, t)
		}
	}
	for _, h := range e.Request.Header {
		scan(h.Value)
	}
	scan(string(e.Request.Body))
	return out
}

// syntax checks a template's words.
func (t template) syntax() error {
	switch t.kind {
	case "port":
		if len(t.args) != 1 || (t.args[0] != "a" && t.args[0] != "b") {
			return fmt.Errorf("%s: want {{port a}} or {{port b}}", t.text)
		}
	case "answer":
		if len(t.args) != 2 {
			return fmt.Errorf("%s: want {{answer EXCHANGE PATH}}", t.text)
		}
		if _, err := answerpath.Parse(t.args[1]); err != nil {
			return fmt.Errorf("%s: the path: %w", t.text, err)
		}
	case "pad":
		n, err := strconv.Atoi(strings.Join(t.args, " "))
		if err != nil || n < 0 || n > MaxPad {
			return fmt.Errorf("%s: want {{pad N}}, N bytes from 0 to %d", t.text, MaxPad)
		}
	default:
		return fmt.Errorf("%s: unknown template (want {{port COPY}}, {{answer EXCHANGE PATH}}, {{pad N}})", t.text)
	}
	return nil
}

// check says whether the exchange a template reads came before it.
func (t template) check(earlier map[string]*Exchange) error {
	if t.kind == "answer" && earlier[t.args[0]] == nil {
		return fmt.Errorf("%s: no exchange %s comes before this one", t.text, t.args[0])
	}
	return nil
}

// Filled is what a template reads: the copies' ports and the responses
// of the exchanges played so far.
type Filled struct {
	Ports map[string]int
	// Responses holds each earlier exchange's response, by exchange name;
	// an exchange that got none is absent.
	Responses map[string]map[string]any
}

// Fill returns the request with its templates filled, or says which one
// cannot be: an earlier exchange got no response, or its response has no
// string at the path.
func (e *Exchange) Fill(f Filled) (httpprobe.Request, error) {
	req := e.Request
	var failed error
	fill := func(s string) string {
		return templateRE.ReplaceAllStringFunc(s, func(m string) string {
			v, err := f.value(m)
			if err != nil && failed == nil {
				failed = err
			}
			return v
		})
	}
	req.Header = append([]httpprobe.Field(nil), e.Request.Header...)
	for i := range req.Header {
		req.Header[i].Value = fill(req.Header[i].Value)
	}
	req.Body = []byte(fill(string(e.Request.Body)))
	return req, failed
}

func (f Filled) value(m string) (string, error) {
	w := strings.Fields(strings.Trim(m, "{}"))
	switch w[0] {
	case "port":
		return strconv.Itoa(f.Ports[w[1]]), nil
	case "pad":
		n, _ := strconv.Atoi(w[1])
		return strings.Repeat("x", n), nil
	}
	resp, ok := f.Responses[w[1]]
	if !ok {
		return "", fmt.Errorf("exchange %s got no response, and this request needs its %s", w[1], w[2])
	}
	path, _ := answerpath.Parse(w[2]) // checked when the scenario was read
	v, found, why := path.Lookup(resp)
	s, isString := v.(string)
	switch {
	case !found:
		return "", fmt.Errorf("the response of exchange %s: %s, and this request needs it", w[1], why)
	case !isString:
		return "", fmt.Errorf("the response of exchange %s has %s that is not a string, and this request needs it as one", w[1], w[2])
	}
	// The value goes inside a JSON string or a header: escape it as JSON
	// does, without its quotes.
	q, _ := json.Marshal(s)
	return string(q[1 : len(q)-1]), nil
}
