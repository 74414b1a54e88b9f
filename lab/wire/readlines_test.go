package wire

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// collect renders what Lines yields, one item a string.
func collect(r io.Reader, max int64, opts ...FramerOption) []string {
	var out []string
	for b, err := range Lines(r, max, opts...) {
		var long *LineTooLongError
		switch {
		case err == nil:
			out = append(out, "line "+string(b))
		case errors.As(err, &long):
			out = append(out, fmt.Sprintf("long %d", long.Dropped))
		default:
			out = append(out, "end "+err.Error())
		}
	}
	return out
}

// Lines yields the lines, a dropped line's length, and the end once; past
// its bound it yields ErrOverLimit in place of what the last read brought.
func TestLines(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   io.Reader
		max  int64
		opts []FramerOption
		want []string
	}{
		{"unbounded", strings.NewReader("a\n\nbb\ncc"), 0, nil, []string{"line a", "line bb", "line cc", "end EOF"}},
		{"blank lines kept", strings.NewReader("a\n\nb\n"), 0, []FramerOption{KeepBlankLines()}, []string{"line a", "line ", "line b", "end EOF"}},
		{"a long line dropped", strings.NewReader("abcdef\nab\n"), 0, []FramerOption{MaxLine(4)}, []string{"long 6", "line ab", "end EOF"}},
		{"within the bound", strings.NewReader("ab\ncd\n"), 6, nil, []string{"line ab", "line cd", "end EOF"}},
		{"past the bound", iotest.OneByteReader(strings.NewReader("ab\ncd\nef\n")), 4, nil, []string{"line ab", "end " + ErrOverLimit.Error()}},
		{"read ahead past the bound", strings.NewReader("ab\ncd\nef\n"), 4, nil, []string{"end " + ErrOverLimit.Error()}},
		{"a read error after the lines", io.MultiReader(strings.NewReader("ab\n"), iotest.ErrReader(io.ErrUnexpectedEOF)), 0, nil, []string{"line ab", "end reading a line: unexpected EOF"}},
	} {
		if got := collect(tt.in, tt.max, tt.opts...); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
	n := 0
	for range Lines(strings.NewReader("a\nb\nc\n"), 0) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("a loop that stops at the second line ran %d times", n)
	}
}
