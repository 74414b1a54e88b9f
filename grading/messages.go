package grading

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcplab/mcplab/lab/textesc"
)

// CountOf is "1 line" or "3 lines": n, then the word in the form n needs
// (textesc.CountOf, which the lab's own commands use too).
func CountOf(n int, one, many string) string { return textesc.CountOf(n, one, many) }

// placeGroup is the further failures of one check in one scenario.
type placeGroup struct {
	scenario string
	wheres   []string
}

// morePlaces says where else a check failed, beyond its first failure
// first, as the parenthesis a message ends with: the first failure's own
// scenario is called "this scenario", never named again, and each other
// scenario is named once with what failed there ("scenario everyday (3
// calls)", "scenario 02-ids (lines 3 and 5)"). It is "" when nothing else
// failed.
func MorePlaces(first Failure, rest []Failure) string {
	if len(rest) == 0 {
		return ""
	}
	var groups []*placeGroup
	index := map[string]*placeGroup{}
	for _, g := range rest {
		p, ok := index[g.Scenario]
		if !ok {
			p = &placeGroup{scenario: g.Scenario}
			index[g.Scenario] = p
			groups = append(groups, p)
		}
		p.wheres = append(p.wheres, g.Where)
	}
	var parts []string
	for _, p := range groups {
		what := describeWheres(p.wheres)
		var part string
		switch {
		case p.scenario == first.Scenario && first.Scenario != "":
			part = "this scenario"
			if what = sameAsFirst(first.Where, p.wheres); what != "" {
				part += " (" + what + ")"
			}
		case p.scenario == "":
			part = "the run as a whole"
			if what != "" {
				part += " (" + what + ")"
			}
		default:
			part = "scenario " + p.scenario
			if what != "" {
				part += " (" + what + ")"
			}
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("(It failed in %s as well: %s.)", CountOf(len(rest), "more place", "more places"), ListSome(parts, 4))
}

// sameAsFirst describes the other places of the first failure's own
// scenario without naming the first one's place again: a failure at that
// same place (another tool of the same answer, say) is "the same command
// again" ("..., 2 more times"), and the rest are described as usual.
func sameAsFirst(where string, wheres []string) string {
	var others []string
	same := 0
	for _, w := range wheres {
		// A bare noun ("call") names a kind, not a place: two calls are
		// two places.
		if strings.Contains(where, " ") && w == where {
			same++
			continue
		}
		others = append(others, w)
	}
	var parts []string
	if same > 0 {
		word, _, _ := strings.Cut(where, " ")
		again := "the same " + word + " again"
		if same > 1 {
			again = fmt.Sprintf("the same %s, %d more times", word, same)
		}
		parts = append(parts, again)
	}
	if len(others) > 0 {
		if d := describeWheres(others); d != "" {
			parts = append(parts, d)
		}
	}
	return strings.Join(parts, "; ")
}

// describeWheres says in a few words which places of one scenario failed:
// "line 3", "lines 3, 5 and 7", "3 calls", "2 times", or "" for one failure
// that names no place.
func describeWheres(wheres []string) string {
	if len(wheres) == 1 {
		// A bare noun ("call") is counted: "1 call". A place that names
		// itself ("line 3", "command 1 {...}") is said as it is.
		if w := wheres[0]; w != "" && !strings.Contains(w, " ") {
			return "1 " + w
		}
		return wheres[0]
	}
	// "line 3", "line 5": one word, then a number each.
	word, nums := "", []string{}
	for _, w := range wheres {
		k, n, ok := strings.Cut(w, " ")
		if !ok || !isNumber(n) || (word != "" && k != word) {
			nums = nil
			break
		}
		word = k
		nums = append(nums, n)
	}
	if nums != nil {
		if len(nums) > 6 {
			return fmt.Sprintf("%ss %s and %d more", word, strings.Join(nums[:5], ", "), len(nums)-5)
		}
		return fmt.Sprintf("%ss %s and %s", word, strings.Join(nums[:len(nums)-1], ", "), nums[len(nums)-1])
	}
	same := true
	for _, w := range wheres {
		same = same && w == wheres[0]
	}
	switch {
	case same && wheres[0] == "":
		return CountOf(len(wheres), "time", "times")
	case same:
		return CountOf(len(wheres), wheres[0], wheres[0]+"s")
	}
	return ListSome(wheres, 4)
}

// isNumber reports whether s is a whole number written in digits.
func isNumber(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// awaitedIDs names the answers the grader waited for: "the answer to id
// 3", "the answers to ids 3 and 4", "the answers to ids 1, 2, 3, 4, 5
// and 2 more".
func AwaitedIDs(ids []string) string {
	switch len(ids) {
	case 0:
		return "the answers"
	case 1:
		return "the answer to id " + ids[0]
	}
	if len(ids) > 6 {
		return fmt.Sprintf("the answers to ids %s and %d more", strings.Join(ids[:5], ", "), len(ids)-5)
	}
	return fmt.Sprintf("the answers to ids %s and %s", strings.Join(ids[:len(ids)-1], ", "), ids[len(ids)-1])
}

// stoppedBecause says why the grader stopped a server without naming the
// server twice: "the server was stopped because it was still running 5s
// after its stdin closed".
func StoppedBecause(reason string) string {
	if rest, ok := strings.CutPrefix(reason, "the server "); ok {
		reason = "it " + rest
	}
	return "the server was stopped because " + reason
}
