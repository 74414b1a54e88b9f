package mcphost

import (
	"fmt"
	"unicode/utf8"
)

// MaxResultChars is the budget of one tool result, in characters (Unicode
// code points), shared by every tool the host runs, remote or not.
const MaxResultChars = 8000

// Truncate cuts text to MaxResultChars characters, never inside a
// character, and adds a sentence saying how many were cut:
//
//	"\n\n[N more characters were cut from this result.]"
//
// It returns the text and the number of characters cut (0 when it fit).
// The sentence is 47 characters plus the digits of N, so a result cut by
// a five-digit number of characters (between 18,000 and 107,999
// characters long, as the lab's long note is) comes to 8052.
func Truncate(text string) (string, int) {
	n := utf8.RuneCountInString(text)
	if n <= MaxResultChars {
		return text, 0
	}
	end, count := 0, 0
	for i := range text {
		if count == MaxResultChars {
			end = i
			break
		}
		count++
	}
	cut := n - MaxResultChars
	return text[:end] + fmt.Sprintf("\n\n[%d more characters were cut from this result.]", cut), cut
}
