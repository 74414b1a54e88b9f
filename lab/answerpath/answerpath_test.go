package answerpath

import (
	"encoding/json"
	"testing"
)

const answer = `{"result":{"tools":[{"name":"list","tags":["a"]},{"name":"search","inputSchema":{"type":"object"}}],"text":"héllo","n":3},"error":null}`

func decoded(t *testing.T) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Lookup reaches what a path names, and says in words where a path that
// reaches nothing ran out.
func TestLookup(t *testing.T) {
	v := decoded(t)
	cases := []struct {
		path  string
		want  string // the JSON of what is reached, or why nothing is
		found bool
	}{
		{"result.n", `3`, true},
		{"result.tools[name=search].inputSchema.type", `"object"`, true},
		{"result.tools[0].tags", `["a"]`, true},
		{"result.tools#", `2`, true},
		{"result.text#", `5`, true},
		{"result.tools[0].tags#", `1`, true},
		{"result.missing", "result.missing is missing", false},
		{"result.n.x", "result.n is not an object", false},
		{"error.code", "error is not an object", false},
		{"result.text[0]", "result.text is not an array", false},
		{"result.tools[2]", "result.tools has no element [2]", false},
		{"result.tools[name=x]", "result.tools has no element [name=x]", false},
		{"result.n#", "result.n has no length", false},
	}
	for _, c := range cases {
		p, err := Parse(c.path)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.path, err)
		}
		if p.String() != c.path {
			t.Errorf("Parse(%q).String() = %q", c.path, p.String())
		}
		got, found, why := p.Lookup(v)
		if found != c.found {
			t.Errorf("Lookup(%q): found %v, want %v (%s)", c.path, found, c.found, why)
			continue
		}
		if found {
			b, _ := json.Marshal(got)
			if string(b) != c.want {
				t.Errorf("Lookup(%q) = %s, want %s", c.path, b, c.want)
			}
		} else if why != c.want {
			t.Errorf("Lookup(%q) says %q, want %q", c.path, why, c.want)
		}
	}
	if _, _, why := mustParse(t, "a").Lookup("not an object"); why != "the answer is not an object" {
		t.Errorf("a path into a string: %q", why)
	}
}

func mustParse(t *testing.T, s string) Path {
	t.Helper()
	p, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Each mistake in a path or a test gets its own sentence, as a teacher
// reads it when a lesson is loaded.
func TestParseErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"", "an empty path"},
		{"a..b present", `path "a..b": an empty member name`},
		{"a[0 present", `path "a[0": a [ without its ]`},
		{"a[x] present", `path "a[x]": [x] is neither [KEY=VALUE] nor [N]`},
		{"a[-1] present", `path "a[-1]": [-1] is neither [KEY=VALUE] nor [N]`},
		{"[0] present", `path "[0]": an empty member name`},
		{"a present 1", "present takes no value"},
		{"a absent x", "absent takes no value"},
		{"a = nope", `the value "nope" is not JSON`},
		{"a =", `the value "" is not JSON`},
		{"a prefix 1", "prefix takes a JSON string"},
		{"a is 1", `unknown test "is" (want =, !=, includes, present, absent, prefix, suffix, contains)`},
		{"a", `unknown test "" (want =, !=, includes, present, absent, prefix, suffix, contains)`},
	}
	for _, c := range cases {
		if _, err := ParseTest(c.spec); err == nil || err.Error() != c.want {
			t.Errorf("ParseTest(%q) = %v, want %q", c.spec, err, c.want)
		}
	}
}

func TestParseTest(t *testing.T) {
	cases := []struct {
		spec, path, op, value string
	}{
		{"result.tools[name=search] present", "result.tools[name=search]", "present", ""},
		{"  error.code   =  -32602 ", "error.code", "=", "-32602"},
		{`error.message contains "tickets/get"`, "error.message", "contains", `"tickets/get"`},
		{`result.x != {"a": [1, 2]}`, "result.x", "!=", `{"a": [1, 2]}`},
		{`result.supportedVersions includes "2026-07-28"`, "result.supportedVersions", "includes", `"2026-07-28"`},
		{`result.pages includes 3`, "result.pages", "includes", `3`},
	}
	for _, c := range cases {
		got, err := ParseTest(c.spec)
		if err != nil || got.Path.String() != c.path || got.Op != c.op || string(got.Value) != c.value {
			t.Errorf("ParseTest(%q) = %q %q %q, %v; want %q %q %q", c.spec, got.Path, got.Op, got.Value, err, c.path, c.op, c.value)
		}
	}
}
