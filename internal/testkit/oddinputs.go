package testkit

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// OddInput is one row of lesson 1's table of odd inputs
// (lessons/01-reading-messages/odd-inputs.md): its number, the input (a Go
// string literal in the table, unquoted here) and the answer it deserves:
// "nothing", "result JSON, id ID" or "error CODE, id ID".
type OddInput struct {
	N             int
	Input, Answer string
}

// oddRow is one row of the table: | # | `input` | answer | why |.
var oddRow = regexp.MustCompile("^\\| (\\d+) \\| `(.*)` \\| (.*?) \\| .* \\|$")

// ReadOddInputs reads the table of odd inputs at path. It fails t on an
// input that is not a Go string literal, or a table of fewer than 20 rows
// (the lesson promises more).
func ReadOddInputs(t testing.TB, path string) []OddInput {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []OddInput
	for _, line := range strings.Split(string(data), "\n") {
		m := oddRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		in, err := strconv.Unquote(m[2])
		if err != nil {
			t.Fatalf("odd-inputs.md row %d: %s is not a Go string literal: %v", n, m[2], err)
		}
		rows = append(rows, OddInput{N: n, Input: in, Answer: m[3]})
	}
	if len(rows) < 20 {
		t.Fatalf("odd-inputs.md has %d rows; the lesson promises at least 20", len(rows))
	}
	return rows
}
