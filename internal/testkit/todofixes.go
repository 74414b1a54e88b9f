package testkit

import (
	"regexp"
	"slices"
	"strings"
)

// fixesSentence is the sentence of a starter's TODO that names the checks
// doing it fixes: "Fixes a, b and c." The list ends at a bracket, a colon
// or the first full stop that ends a sentence (a check id's own dots are
// followed by a letter).
var fixesSentence = regexp.MustCompile(`\bFixes (.*?)(?:\s*\(|:\s|\.(?:\s|$))`)

// TODOFixes reads a starter's source and returns, for each TODO marker
// finds, the sorted check ids its "Fixes" sentences name, keyed by the
// marker's first group: a TODO's name ("framing" in "TODO(lesson 1):
// framing.") or a part's number ("3" in "TODO(lesson 2), part 3: tools.").
// A TODO is the marker's comment line and the comment lines (// or #)
// right after it, up to the next marker; TODOs with the same key (a part's "continued") add to
// one list, and a TODO that names no check has an empty, non-nil one. The
// lessons' starter tests hold these lists to the checks each stage turns
// from fail to pass.
func TODOFixes(source string, marker *regexp.Regexp) map[string][]string {
	fixes := map[string][]string{}
	lines := strings.Split(source, "\n")
	for i := 0; i < len(lines); i++ {
		m := marker.FindStringSubmatch(lines[i])
		if len(m) < 2 {
			continue
		}
		var text []string
		for j := i; j < len(lines); j++ {
			if j > i && marker.MatchString(lines[j]) {
				break // the next TODO starts here
			}
			line := strings.TrimSpace(lines[j])
			body, ok := strings.CutPrefix(line, "//")
			if !ok {
				body, ok = strings.CutPrefix(line, "#")
			}
			if !ok {
				break
			}
			text = append(text, strings.TrimSpace(body))
			i = j
		}
		ids := fixes[m[1]]
		if ids == nil {
			ids = []string{}
		}
		for _, f := range fixesSentence.FindAllStringSubmatch(strings.Join(text, " "), -1) {
			for _, id := range strings.Split(strings.ReplaceAll(f[1], " and ", ", "), ",") {
				ids = append(ids, strings.TrimSpace(id))
			}
		}
		slices.Sort(ids)
		fixes[m[1]] = slices.Compact(ids)
	}
	return fixes
}

// ListOrNone joins check ids for a test's message: "none" when there are
// none.
func ListOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
