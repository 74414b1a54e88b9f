package serverlesson

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/answerpath"
	"github.com/mcplab/mcplab/lab/scenario"
)

// answerTest is a scenario's answer line made ready to judge: a path and a
// test (lab/answerpath), applied to the answer to one id.
type answerTest struct {
	scenario.AnswerTest
	test answerpath.Test
}

// parseAnswerTest reads the path and test of an answer line (lab/answerpath;
// "includes VALUE" is how a line says that a server's supportedVersions
// lists a revision, beside any others it lists).
func parseAnswerTest(at scenario.AnswerTest) (answerTest, error) {
	test, err := answerpath.ParseTest(at.Spec)
	if err != nil {
		return answerTest{}, fmt.Errorf("line %d: %q: %w", at.Line, at.Text, err)
	}
	return answerTest{AnswerTest: at, test: test}, nil
}

// validateAnswerTests checks a scenario's answer lines when the lesson is
// loaded: each names checks the catalogue tags (tagErr), has a path and a
// test that parse, and an id that one of the scenario's requests carries.
func validateAnswerTests(sc *scenario.Scenario, tagErr func(*scenario.Scenario, int, string) error) error {
	if len(sc.Tests) == 0 {
		return nil
	}
	lines, err := sentLines(sc)
	if err != nil {
		return err
	}
	for _, at := range sc.Tests {
		for _, c := range at.Checks {
			if err := tagErr(sc, at.Line, c); err != nil {
				return err
			}
		}
		if _, err := parseAnswerTest(at); err != nil {
			return fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		if requestLine(lines, at.ID) == nil {
			return fmt.Errorf("scenario %s: line %d: no request of the scenario has the id %s", sc.Name, at.Line, at.ID)
		}
	}
	return nil
}

// judgeAnswerTests judges a scenario's answer lines. A test looks inside an
// answer that is otherwise right: when the answer is missing or does not
// match the line's expected answer, the expected answer's checks already
// judge that fault, so a test of other checks is not judged there (one
// fault, one check), and a test of the same checks adds nothing.
func judgeAnswerTests(ev *evidence, t *grading.Tally) {
	for _, raw := range ev.sc.Tests {
		at, err := parseAnswerTest(raw)
		if err != nil {
			// LoadLesson refused such a scenario already.
			continue
		}
		l := requestLine(ev.lines, at.ID)
		if l == nil {
			continue
		}
		var expected []string
		if l.expect != nil {
			expected = l.expect.Checks
		}
		others := notIn(at.Checks, expected)
		switch {
		case l.got == nil && l.expect == nil:
			ev.fail(t, ev.missed(grading.Failure{Where: fmt.Sprintf("line %d", l.n), Line: l.text,
				What:     ev.withNote(fmt.Sprintf("%s got no answer, so its answer could not show %s", l.describe(), at.Spec)),
				Expected: "an answer where " + at.Spec, Actual: "(nothing)"}), at.Checks...)
			continue
		case l.got == nil || l.expect != nil && !matches(*l.expect, l.got):
			why := fmt.Sprintf("the answer to %s is missing or wrong, which %s judges", l.describe(), grading.ListSome(expected, 3))
			t.Skip(why, others...)
			continue
		}
		t.Test(at.Checks...)
		var value map[string]any
		if json.Unmarshal([]byte(l.got.Line), &value) != nil {
			value = nil
		}
		f := grading.TestAnswerPath(at.test, grading.AnswerLine{Text: l.got.Line, Value: value})
		if f == nil {
			continue
		}
		f.Where, f.Line = fmt.Sprintf("line %d", l.n), l.text
		f.What = placeWhat(f.What, "the answer to "+l.describe())
		f.Actual = l.got.Line
		ev.fail(t, *f, at.Checks...)
	}
}

// placeWhat says which answer testAnswer's sentence is about.
func placeWhat(what, answer string) string {
	if rest, ok := strings.CutPrefix(what, "in the answer, "); ok {
		return "in " + answer + ", " + rest
	}
	if rest, ok := strings.CutPrefix(what, "the answer "); ok {
		return answer + " " + rest
	}
	return "in " + answer + ", " + what
}

// notIn returns the ids of a that b does not hold.
func notIn(a, b []string) []string {
	var out []string
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}
