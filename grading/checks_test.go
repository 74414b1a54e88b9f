package grading

import (
	"reflect"
	"testing"
)

// TestParseChecksFields checks what each key of a catalogue entry sets,
// and that a bad entry is refused with the check, the line where there is
// one, and what was expected.
func TestParseChecksFields(t *testing.T) {
	got, err := ParseChecks([]byte("-- ids --\n# a comment\ntitle: T\npoints: 3\nrule: R: with a colon\nfix: F\njudge: pagination method=tools/list\n-- b --\ntitle: B\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{ID: "ids", Title: "T", Points: 3, Rule: "R: with a colon", Fix: "F", Judge: "pagination", Params: map[string]string{"method": "tools/list"}},
		{ID: "b", Title: "B"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	for text, msg := range map[string]string{
		"-- a --\ntitle: A\ncolour: red\n":       `check a, line 2: unknown key "colour" (want title, points, rule, fix, judge)`,
		"-- a --\ntitle: A\npoints: -1\n":        `check a: points "-1" is not a whole number`,
		"-- a --\ntitle: A\npoints: two\n":       `check a: points "two" is not a whole number`,
		"-- a --\ntitle A\n":                     `check a, line 1: want "key: value"`,
		"-- a --\npoints: 1\n":                   `check a has no title`,
		"-- a --\ntitle:\n":                      `check a has no title`,
		"-- a --\ntitle: A\n-- a --\ntitle: B\n": `check a is listed twice`,
		"":                                       `the check catalogue is empty`,
	} {
		if _, err := ParseChecks([]byte(text)); err == nil || err.Error() != msg {
			t.Errorf("%q: got error %v, want %s", text, err, msg)
		}
	}
}
