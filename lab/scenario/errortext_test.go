package scenario

import "testing"

// TestParseErrorText pins the exact sentence a teacher reads for each
// mistake a steps or expect line can make: the line's number first, then
// what was wrong and what was wanted.
func TestParseErrorText(t *testing.T) {
	cases := []struct{ file, want string }{
		{"-- steps --\nat 0ms\n",
			"scenario bad: line 2: \"at 0ms\": want \"at TIME send PART...\", \"at TIME close\" or \"at TIME close early\""},
		{"-- steps --\nat soon send a\n-- a --\nx\n",
			"scenario bad: line 2: \"soon\" is not a time like 40ms or 5s"},
		{"-- steps --\nat 0ms send\n",
			"scenario bad: line 2: send names no part"},
		{"-- steps --\nat 0ms send nope\n-- a --\nx\n",
			"scenario bad: line 2: no part named \"nope\" (parts: a)"},
		{"-- steps --\nat 0ms send a[1:99]\n-- a --\nx\n",
			"scenario bad: line 2: bad slice \"a[1:99]\": 99 is outside the part's 2 bytes"},
		{"-- steps --\nat 0ms close late\n",
			"scenario bad: line 2: \"at 0ms close late\": want \"at TIME close\" or \"at TIME close early\""},
		{"-- steps --\nat 0ms jump\n",
			"scenario bad: line 2: unknown action \"jump\" (want send or close)"},
		{"-- steps --\nawait 1 in 1s\n",
			"scenario bad: line 2: \"await 1 in 1s\": want \"await ID within TIME\""},
		{"-- steps --\nawait 1.5 within 1s\n",
			"scenario bad: line 2: \"1.5\" is not an id (a JSON string like \"a\", an integer, or null)"},
		{"-- steps --\nawait 1 within soon\n",
			"scenario bad: line 2: \"soon\" is not a time like 40ms or 5s"},
		{"-- steps --\njump 5   # comment\n",
			"scenario bad: line 2: unknown step \"jump\" (want at, await or kill)"},
		{"-- steps --\n\n# only\n",
			"scenario bad: the steps section is empty"},
		{"-- steps --\nat 0ms close\n-- expect --\nnotacheck {}\n",
			"scenario bad: line 4: \"notacheck\" is not a check id (like errors.parse)"},
		{"-- steps --\nat 0ms close\n-- expect --\nerrors.parse {\"id\":1}\n",
			"scenario bad: line 4: the expected answer {\"id\":1} is not a response: it lacks \"jsonrpc\":\"2.0\""},
		{"-- steps --\nat 0ms close\n-- expect --\nerrors.parse partial 1 before 2\n",
			"scenario bad: line 4: \"partial\" must be followed by an answer object"},
		{"-- steps --\nat 0ms close\n-- expect --\nerrors.parse answer 1.5 result ok\n",
			"scenario bad: line 4: \"1.5\" is not an id (a JSON string like \"a\", an integer, or null)"},
		{"-- steps --\nat 0ms close\n-- expect --\nerrors.parse answer 1   \n",
			"scenario bad: line 4: want \"answer ID PATH TEST [VALUE]\" after the check ids"},
		{"-- steps --\nat 0ms close\n-- expect --\nerrors.parse 1 after 2\n",
			"scenario bad: line 4: want an answer object or \"ID before ID\" after the check ids"},
		{"-- steps --\nat 0ms close\n-- expect --\nerrors.parse x before 2\n",
			"scenario bad: line 4: \"x\" is not an id (a JSON string like \"a\", an integer, or null)"},
		{"-- steps --\nat 0ms close\n-- expect --\nerrors.parse 1 before y\n",
			"scenario bad: line 4: \"y\" is not an id (a JSON string like \"a\", an integer, or null)"},
	}
	for _, c := range cases {
		_, err := Parse("bad", []byte(c.file))
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q):\n got  %v\n want %s", c.file, err, c.want)
		}
	}
}
