package grading

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/answerpath"
	"github.com/mcplab/mcplab/lab/clientscenario"
)

// AnswerLine is one line a program answered, as the grader kept it: its
// text, its JSON object (nil when the line is not a JSON object, or was
// cut), its size in bytes, how many of them were cut (over the line cap),
// and whether it came past the stream's cap, and so was counted, not kept.
type AnswerLine struct {
	Text      string
	Value     map[string]any
	Size, Cut int64
	Dropped   bool
}

// TestAnswer applies a client scenario's answer test to a program's answer.
func TestAnswer(e clientscenario.Expectation, a AnswerLine) *Failure {
	return TestAnswerPath(e.Test, a)
}

// TestAnswerPath applies an answer test (lab/answerpath) to a program's
// answer: nil when it holds, else what was wrong.
func TestAnswerPath(e answerpath.Test, a AnswerLine) *Failure {
	if a.Dropped {
		return &Failure{What: fmt.Sprintf("the answer (a line of %d bytes) came after the client's stdout had passed its cap for the scenario, so it was counted, not kept", a.Size),
			Expected: "one short JSON object per line, and nothing else on stdout (logs go to stderr)"}
	}
	if a.Cut > 0 {
		return &Failure{What: fmt.Sprintf("the answer is a line of %d bytes, longer than the %d bytes the grader keeps of a line, so it cannot be read as JSON", a.Size, LineMax),
			Expected: "one short JSON object per line", Actual: Clip(a.Text, 300)}
	}
	if a.Value == nil {
		return &Failure{What: "the answer is not a JSON object", Expected: "one JSON object per line", Actual: Clip(a.Text, 300)}
	}
	path := e.Path.String()
	got, found, why := e.Path.Lookup(map[string]any(a.Value))
	show := Clip(a.Text, 300)
	switch e.Op {
	case "present":
		if !found {
			return &Failure{What: fmt.Sprintf("in the answer, %s", why), Expected: path + " in the answer", Actual: show}
		}
		return nil
	case "absent":
		if found {
			return &Failure{What: fmt.Sprintf("the answer has %s", path), Expected: "no " + path, Actual: show}
		}
		return nil
	}
	if !found {
		expected := fmt.Sprintf("%s %s %s", path, e.Op, e.Value)
		if e.Op == "includes" {
			expected = fmt.Sprintf("%s holding %s", path, e.Value)
		}
		return &Failure{What: fmt.Sprintf("in the answer, %s", why), Expected: expected, Actual: show}
	}
	gotJSON, _ := json.Marshal(got)
	var want any
	json.Unmarshal(e.Value, &want)
	ok := false
	switch e.Op {
	case "=":
		ok = JSONEqual(gotJSON, e.Value)
	case "includes":
		arr, isArray := got.([]any)
		if !isArray {
			return &Failure{What: fmt.Sprintf("%s is %s, not an array", path, Clip(string(gotJSON), 200)), Expected: fmt.Sprintf("%s holding %s", path, e.Value), Actual: show}
		}
		for _, el := range arr {
			b, _ := json.Marshal(el)
			ok = ok || JSONEqual(b, e.Value)
		}
		if !ok {
			return &Failure{What: fmt.Sprintf("%s is %s, without %s", path, Clip(string(gotJSON), 200), e.Value), Expected: fmt.Sprintf("%s holding %s", path, e.Value), Actual: show}
		}
	case "!=":
		ok = !JSONEqual(gotJSON, e.Value)
	case "prefix", "suffix", "contains":
		s, isString := got.(string)
		w, _ := want.(string)
		ok = isString && map[string]func(string, string) bool{"prefix": strings.HasPrefix, "suffix": strings.HasSuffix, "contains": strings.Contains}[e.Op](s, w)
	}
	if ok {
		return nil
	}
	return &Failure{What: fmt.Sprintf("%s is %s", path, Clip(string(gotJSON), 200)), Expected: fmt.Sprintf("%s %s %s", path, opWords(e.Op), Clip(string(e.Value), 200)), Actual: show}
}

func opWords(op string) string {
	switch op {
	case "=":
		return "equal to"
	case "!=":
		return "other than"
	case "prefix":
		return "starting with"
	case "suffix":
		return "ending with"
	}
	return "containing"
}
