package class

import "strconv"

// countOf is "1 submission" or "3 submissions": n, then the noun in the
// form n needs, for every count a teacher reads.
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
