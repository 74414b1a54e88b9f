package textesc

import "strconv"

// CountOf is "1 line" or "3 lines": n, then the word in the form n needs,
// for every count a student or a teacher reads.
func CountOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Pick is one or many, the form n needs, without the number: "was" or
// "were".
func Pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
