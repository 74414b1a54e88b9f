package main

import (
	"strconv"
	"strings"
)

// countOf is "1 submission" or "3 submissions": n, then the noun in the
// form n needs, for every count a user reads.
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// lineVerdict turns a schema verdict into the rest of a sentence that
// begins "line N": "it is not JSON, ..." reads "line 2 is not JSON, ...",
// never "line 2 it is not JSON".
func lineVerdict(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "it "); ok {
		return rest
	}
	return msg
}
