package grading

import (
	"reflect"
	"strings"
	"testing"
)

// testJudges is a registry like a kind's: one judge that serves a single
// check, one that takes a parameter and may serve several, and a taggable
// one.
func testJudges() *Judges {
	var r Judges
	r.Handle("ids-exact", Judge{What: "every answer's id is its request's"})
	r.Handle("pagination", Judge{Params: []string{"method"}, Many: true, What: "every page is asked for"})
	r.Handle("answers-once", Judge{Taggable: true, What: "one answer per request"})
	return &r
}

// TestJudgesRegistry checks that a registry keeps its judges by name, in
// the order they were registered, and refuses a second judge of one name.
func TestJudgesRegistry(t *testing.T) {
	r := testJudges()
	if got, want := r.Names(), []string{"ids-exact", "pagination", "answers-once"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	j, ok := r.Lookup("pagination")
	if !ok || !j.Many || !reflect.DeepEqual(j.Params, []string{"method"}) {
		t.Errorf("pagination looked up as %+v, %v", j, ok)
	}
	if _, ok := r.Lookup("stderr-logs"); ok {
		t.Error("a judge never registered was found")
	}
	var empty Judges
	if _, ok := empty.Lookup("ids-exact"); ok || len(empty.Names()) != 0 {
		t.Error("the zero registry is not empty")
	}
	for name, handle := range map[string]func(){
		"twice":      func() { r.Handle("ids-exact", Judge{}) },
		"upper case": func() { r.Handle("IDs", Judge{}) },
		"bad param":  func() { r.Handle("fine", Judge{Params: []string{"a", "a"}}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Handle did not refuse it", name)
				}
			}()
			handle()
		}()
	}
}

// TestJudgeLines checks that a catalogue's judge lines are read into the
// judge's name and parameters, and that a malformed one is refused with
// the check, the line and what is wrong.
func TestJudgeLines(t *testing.T) {
	checks, err := ParseChecks([]byte("-- a --\ntitle: A\njudge: pagination method=resources/list\n-- b --\ntitle: B\njudge:  ids-exact \n-- c --\ntitle: C\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Check{
		{ID: "a", Title: "A", Judge: "pagination", Params: map[string]string{"method": "resources/list"}},
		{ID: "b", Title: "B", Judge: "ids-exact"},
		{ID: "c", Title: "C"},
	}
	if !reflect.DeepEqual(checks, want) {
		t.Errorf("read %+v, want %+v", checks, want)
	}
	if got := checks[0].JudgeLine(); got != "pagination method=resources/list" {
		t.Errorf("judge line %q", got)
	}
	if got := checks[2].JudgeLine(); got != "" {
		t.Errorf("a tagged check's judge line is %q", got)
	}
	for text, msg := range map[string]string{
		"-- a --\ntitle: A\njudge:\n":                       `check a, line 2: "judge:" names no judge; write "judge: NAME", with key=value parameters after the name if the judge takes any`,
		"-- a --\ntitle: A\njudge: Pagination\n":            `check a, line 2: judge name "Pagination" is not lower-case letters, digits and dashes`,
		"-- a --\ntitle: A\njudge: pagination method\n":     `check a, line 2: judge pagination: parameter "method" is not key=value (a key of lower-case letters, digits and dashes, a value with no spaces)`,
		"-- a --\ntitle: A\njudge: pagination method=\n":    `check a, line 2: judge pagination: parameter "method=" is not key=value (a key of lower-case letters, digits and dashes, a value with no spaces)`,
		"-- a --\ntitle: A\njudge: pagination m=1 m=2\n":    `check a, line 2: judge pagination: parameter m is given twice`,
		"-- a --\ntitle: A\njudge: ids-exact\njudge: ids\n": `check a, line 3: a second "judge:" line; a check has one judge`,
		"-- a --\ntitle: A\nderived: yes\n":                 `check a, line 2: "derived:" is no longer read: name the judge that works the check out, as "judge: NAME" (lessons/README.md lists the judges)`,
	} {
		_, err := ParseChecks([]byte(text))
		if err == nil || err.Error() != msg {
			t.Errorf("%q: got error %v, want %s", text, err, msg)
		}
	}
}

// TestJudgesCheckCatalogue checks that a catalogue is refused, naming the
// check and what the kind knows, for an unknown judge, an unknown or a
// missing parameter, and a judge given to two checks where it cannot
// serve both; and that a judge that may serve several checks does, each
// with its own parameters.
func TestJudgesCheckCatalogue(t *testing.T) {
	r := testJudges()
	pages := func(id, method string) Check {
		return Check{ID: id, Judge: "pagination", Params: map[string]string{"method": method}}
	}
	ok := []Check{{ID: "tagged"}, {ID: "ids", Judge: "ids-exact"}, pages("tools", "tools/list"), pages("resources", "resources/list")}
	if err := r.Check(ok); err != nil {
		t.Errorf("a catalogue the registry can serve was refused: %v", err)
	}
	for name, tc := range map[string]struct {
		checks []Check
		want   string
	}{
		"unknown judge": {[]Check{{ID: "x", Judge: "stderr-logs"}},
			`check x: there is no judge "stderr-logs" (the judges of this kind of lesson: ids-exact, pagination, answers-once)`},
		"unknown parameter": {[]Check{{ID: "x", Judge: "ids-exact", Params: map[string]string{"type": "string"}}},
			`check x: the judge ids-exact takes no parameter "type" (it takes none)`},
		"another parameter": {[]Check{{ID: "x", Judge: "pagination", Params: map[string]string{"method": "tools/list", "items": "tools"}}},
			`check x: the judge pagination takes no parameter "items" (it takes method)`},
		"missing parameter": {[]Check{{ID: "x", Judge: "pagination"}},
			`check x: the judge pagination needs the parameter method, as "judge: pagination method=..." (it takes method)`},
		"one check's judge twice": {[]Check{{ID: "a", Judge: "ids-exact"}, {ID: "tagged"}, {ID: "b", Judge: "ids-exact"}},
			`checks a and b both name the judge ids-exact, which judges one check of a lesson: each would be charged with the same faults; keep it on one of them`},
		"same parameters twice": {[]Check{pages("a", "tools/list"), pages("b", "tools/list")},
			`checks a and b both ask for "judge: pagination method=tools/list": each would be charged with the same faults; give them other parameters, or drop one`},
	} {
		err := r.Check(tc.checks)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got error %v,\nwant %s", name, err, tc.want)
		}
	}
}

// TestServedChecks checks that a kind finds the check a judge serves in a
// lesson's catalogue by the judge's name, "" when the lesson has none, and
// which checks it may tag.
func TestServedChecks(t *testing.T) {
	r := testJudges()
	checks := []Check{{ID: "tagged"}, {ID: "answers.once", Judge: "answers-once"},
		{ID: "tools", Judge: "pagination", Params: map[string]string{"method": "tools/list"}},
		{ID: "resources", Judge: "pagination", Params: map[string]string{"method": "resources/list"}}}
	if got := Served(checks, "answers-once"); got != "answers.once" {
		t.Errorf("answers-once serves %q", got)
	}
	if got := Served(checks, "ids-exact"); got != "" {
		t.Errorf("a judge the catalogue does not name serves %q", got)
	}
	var ids []string
	for _, c := range JudgedBy(checks, "pagination") {
		ids = append(ids, c.ID+" "+c.Params["method"])
	}
	if got := strings.Join(ids, ", "); got != "tools tools/list, resources resources/list" {
		t.Errorf("pagination judges %s", got)
	}
	for i, want := range []bool{true, true, false, false} {
		if got := r.Taggable(checks[i]); got != want {
			t.Errorf("check %s taggable: %v, want %v", checks[i].ID, got, want)
		}
	}
	if r.Taggable(Check{ID: "x", Judge: "nobody"}) {
		t.Error("a check whose judge is unknown may be tagged")
	}
}
