package clientplay

import (
	"strings"
	"testing"
)

// TestClipMiddleCountsInWords checks that the marker of a clipped line
// counts what it left out in the right number: 1 character, 2 characters.
func TestClipMiddleCountsInWords(t *testing.T) {
	for n, want := range map[int]string{241: "[1 character left out]", 242: "[2 characters left out]"} {
		if got := clipMiddle(strings.Repeat("a", n)); !strings.Contains(got, " ... "+want+" ... ") {
			t.Errorf("clipMiddle of %d characters = %q, want it to say %q", n, got, want)
		}
	}
}
