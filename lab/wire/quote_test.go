package wire

import (
	"strings"
	"testing"
)

func TestQuoteShort(t *testing.T) {
	for in, want := range map[string]string{
		"":                      `""`,
		"hello \x1b[31m\xff":    `"hello \x1b[31m\xff"`,
		strings.Repeat("a", 60): `"` + strings.Repeat("a", 60) + `"`,
		strings.Repeat("b", 61): `"` + strings.Repeat("b", 60) + `"...`,
	} {
		if got := QuoteShort([]byte(in)); got != want {
			t.Errorf("QuoteShort(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestCompact(t *testing.T) {
	for in, want := range map[string]string{
		` { "a" : [ 1 , 2 ] } `: `{"a":[1,2]}`,
		`"x y"`:                 `"x y"`,
		`{not json`:             `{not json`,
	} {
		if got := string(Compact([]byte(in))); got != want {
			t.Errorf("Compact(%q) = %s, want %s", in, got, want)
		}
	}
}
