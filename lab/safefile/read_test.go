package safefile_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mcplab/mcplab/lab/safefile"
)

// TestReadAtMost: a reader within the bound is read whole; one byte over
// is reported, with the bound's bytes; a read error is handed on.
func TestReadAtMost(t *testing.T) {
	for _, tc := range []struct {
		in   string
		data string
		over bool
	}{{"", "", false}, {"abcd", "abcd", false}, {"abcde", "abcd", true}, {strings.Repeat("x", 100), "xxxx", true}} {
		data, over, err := safefile.ReadAtMost(strings.NewReader(tc.in), 4)
		if string(data) != tc.data || over != tc.over || err != nil {
			t.Errorf("%q: %q, over %v, %v; want %q, over %v", tc.in, data, over, err, tc.data, tc.over)
		}
	}
	boom := errors.New("boom")
	if _, _, err := safefile.ReadAtMost(io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(boom)), 4); !errors.Is(err, boom) {
		t.Errorf("a failing reader: %v, want boom", err)
	}
}
