package textesc

import "testing"

// TestCountOf checks the word follows the count: one alone takes the
// singular, every other count (none included) the plural.
func TestCountOf(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0 processes"},
		{1, "1 process"},
		{2, "2 processes"},
		{12, "12 processes"},
	} {
		if got := CountOf(c.n, "process", "processes"); got != c.want {
			t.Errorf("CountOf(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
