package grading

import (
	"encoding/json"
	"testing"

	"github.com/mcplab/mcplab/lab/answerpath"
)

// TestAnswerPathIncludes: "includes" holds for an array with an element
// equal to the value (as JSON, whatever the other elements), and says what
// the array held, or that it is no array, when it does not.
func TestAnswerPathIncludes(t *testing.T) {
	test, err := answerpath.ParseTest(`result.supportedVersions includes "2026-07-28"`)
	if err != nil {
		t.Fatal(err)
	}
	line := func(text string) AnswerLine {
		var v map[string]any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		return AnswerLine{Text: text, Value: v}
	}
	for text, want := range map[string]string{
		`{"result":{"supportedVersions":["2026-07-28"]}}`:              "",
		`{"result":{"supportedVersions":["2026-07-28","2025-11-25"]}}`: "",
		`{"result":{"supportedVersions":["2025-11-25"]}}`:              `result.supportedVersions is ["2025-11-25"], without "2026-07-28"`,
		`{"result":{"supportedVersions":"2026-07-28"}}`:                `result.supportedVersions is "2026-07-28", not an array`,
		`{"result":{}}`: "in the answer, result.supportedVersions is missing",
	} {
		f := TestAnswerPath(test, line(text))
		switch {
		case want == "" && f != nil:
			t.Errorf("%s: %s; want it to hold", text, f.What)
		case want != "" && (f == nil || f.What != want):
			t.Errorf("%s: %+v; want %q", text, f, want)
		case want != "" && f.Expected != `result.supportedVersions holding "2026-07-28"`:
			t.Errorf("%s: expected %q", text, f.Expected)
		}
	}
}
