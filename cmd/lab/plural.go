package main

import "strings"

// lineVerdict turns a schema verdict into the rest of a sentence that
// begins "line N": "it is not JSON, ..." reads "line 2 is not JSON, ...",
// never "line 2 it is not JSON".
func lineVerdict(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "it "); ok {
		return rest
	}
	return msg
}
