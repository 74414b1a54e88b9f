// Package answerpath is the small language a scenario's expectations use
// to point into a JSON answer and test what is there. A client scenario's
// answer lines and a server scenario's answer tests both write it:
//
//	result.tools[name=search].inputSchema.type = "object"
//	error.message contains "tickets/get"
//	result.content[0].text# = 8000
//	result.nextCursor absent
//
// A path is member names joined by dots. A member may be followed by a
// pick, [KEY=VALUE] for the first element of an array whose member KEY is
// the string VALUE, or [N] for its element N (from 0), and then by #,
// which takes the length of what was reached (a string's, in characters,
// or an array's). A test is the path, then one of = and != (with a JSON
// value), includes (with a JSON value: the path leads to an array with an
// element equal to it), prefix, suffix and contains (with a JSON string),
// or present and absent (with no value). Parsing checks the syntax only; Lookup follows a
// path into a decoded answer and says where it ran out.
package answerpath

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Path is a parsed answer path. Use Parse.
type Path struct {
	text  string
	steps []step
}

// step is one step of a path: a member, then maybe an element pick, then
// maybe a length.
type step struct {
	member   string
	pickKey  string // [k=v]
	pickVal  string
	pickN    int // [N], from 0; -1 when none
	isLength bool
}

// Parse reads a path as written.
func Parse(p string) (Path, error) {
	if p == "" {
		return Path{}, fmt.Errorf("an empty path")
	}
	out := Path{text: p}
	for _, part := range strings.Split(p, ".") {
		st := step{pickN: -1}
		if strings.HasSuffix(part, "#") {
			st.isLength = true
			part = strings.TrimSuffix(part, "#")
		}
		if i := strings.Index(part, "["); i >= 0 {
			if !strings.HasSuffix(part, "]") {
				return Path{}, fmt.Errorf("path %q: a [ without its ]", p)
			}
			pick := part[i+1 : len(part)-1]
			part = part[:i]
			if k, v, ok := strings.Cut(pick, "="); ok {
				st.pickKey, st.pickVal = k, v
			} else if n, err := strconv.Atoi(pick); err == nil && n >= 0 {
				st.pickN = n
			} else {
				return Path{}, fmt.Errorf("path %q: [%s] is neither [KEY=VALUE] nor [N]", p, pick)
			}
		}
		if part == "" {
			return Path{}, fmt.Errorf("path %q: an empty member name", p)
		}
		st.member = part
		out.steps = append(out.steps, st)
	}
	return out, nil
}

// String returns the path as written.
func (p Path) String() string { return p.text }

// Lookup follows the path into v, an answer decoded by encoding/json into
// an any (objects are map[string]any). It returns what the path reaches
// (a length as a float64), or, when it reaches nothing, where it ran out,
// as words for a student ("result.tools has no element [name=x]").
func (p Path) Lookup(v any) (got any, found bool, why string) {
	where := ""
	for _, st := range p.steps {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Sprintf("%s is not an object", nonEmpty(where, "the answer"))
		}
		where = strings.TrimPrefix(where+"."+st.member, ".")
		if v, ok = obj[st.member]; !ok {
			return nil, false, fmt.Sprintf("%s is missing", where)
		}
		if st.pickKey != "" || st.pickN >= 0 {
			var why string
			if v, where, why = st.pick(v, where); why != "" {
				return nil, false, why
			}
		}
		if st.isLength {
			switch x := v.(type) {
			case string:
				v = float64(len([]rune(x)))
			case []any:
				v = float64(len(x))
			default:
				return nil, false, fmt.Sprintf("%s has no length", where)
			}
		}
	}
	return v, true, ""
}

// pick takes the element st picks from v, the member at where; it returns
// the element, where it is, and why there is none.
func (st step) pick(v any, where string) (any, string, string) {
	arr, ok := v.([]any)
	if !ok {
		return nil, where, fmt.Sprintf("%s is not an array", where)
	}
	if st.pickN >= 0 {
		where += fmt.Sprintf("[%d]", st.pickN)
		if st.pickN < len(arr) {
			return arr[st.pickN], where, ""
		}
	} else {
		where += fmt.Sprintf("[%s=%s]", st.pickKey, st.pickVal)
		for _, el := range arr {
			if m, ok := el.(map[string]any); ok {
				if s, ok := m[st.pickKey].(string); ok && s == st.pickVal {
					return el, where, ""
				}
			}
		}
	}
	picked := where[strings.LastIndex(where, "["):]
	return nil, where, fmt.Sprintf("%s has no element %s", strings.TrimSuffix(where, picked), picked)
}

func nonEmpty(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// Test is an answer test: a path, an operator, and the value it compares
// with.
type Test struct {
	// Path leads to what is tested.
	Path Path
	// Op is =, !=, includes, present, absent, prefix, suffix or contains.
	Op string
	// Value is the JSON value of =, !=, includes (any JSON), prefix,
	// suffix and contains (a string); nil for present and absent.
	Value json.RawMessage
}

// ParseTest reads a test as written: "PATH OP [VALUE]", with spaces around
// OP.
func ParseTest(spec string) (Test, error) {
	var t Test
	p, rest, _ := strings.Cut(strings.TrimSpace(spec), " ")
	op, value, _ := strings.Cut(strings.TrimSpace(rest), " ")
	var err error
	if t.Path, err = Parse(p); err != nil {
		return t, err
	}
	t.Op = op
	switch op {
	case "present", "absent":
		if strings.TrimSpace(value) != "" {
			return t, fmt.Errorf("%s takes no value", op)
		}
	case "=", "!=", "includes", "prefix", "suffix", "contains":
		value = strings.TrimSpace(value)
		if !json.Valid([]byte(value)) {
			return t, fmt.Errorf("the value %q is not JSON", value)
		}
		t.Value = json.RawMessage(value)
		if op != "=" && op != "!=" && op != "includes" {
			var s string
			if json.Unmarshal(t.Value, &s) != nil {
				return t, fmt.Errorf("%s takes a JSON string", op)
			}
		}
	default:
		return t, fmt.Errorf("unknown test %q (want =, !=, includes, present, absent, prefix, suffix, contains)", op)
	}
	return t, nil
}
