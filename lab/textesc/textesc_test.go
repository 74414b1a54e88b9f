package textesc

import "testing"

func TestVisibleAndLine(t *testing.T) {
	for _, c := range []struct{ in, visible, line string }{
		{"plain text", "plain text", "plain text"},
		{"a\tb\nc", "a\tb\nc", `a	b\x0ac`},
		{"cr\r\n", "cr\\r\n", `cr\x0d\x0a`},
		{"esc\x1b[31m", `esc\x1b[31m`, `esc\x1b[31m`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"c1\u0085", `c1\u0085`, `c1\u0085`},
		{"bidi\u202eevil", `bidi\u202eevil`, `bidi\u202eevil`},
		{"zoë 🙂", "zoë 🙂", "zoë 🙂"},
	} {
		if got := Visible(c.in); got != c.visible {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.visible)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
	}
}

func TestMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		"bo|b":           `bo\|b`,
		"<b>x</b>":       `\<b\>x\</b\>`,
		"line\nbreak":    `line\x0abreak`,
		"README.md":      "README.md",
		"plain name 123": "plain name 123",
		`each wait answers {"waited": N} with its own id`: `each wait answers {"waited": N} with its own id`,
		"gets -32700 with id null":                        "gets -32700 with id null",
		"- a list":                                        `\- a list`,
		"# heading":                                       `\# heading`,
		"1. first":                                        `1\. first`,
		`a\x1b b\*`:                                       `a\x1b b\\\*`,
		"see http://x.org and www.x.org":                  `see http:\//x.org and www\.x.org`,
	} {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
	}
}

// Cells a spreadsheet would run as a formula start with a quote; control
// characters anywhere are shown as escapes.
func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{
		`=HYPERLINK("http://x","y")`: `'=HYPERLINK("http://x","y")`,
		"+SUM(1,2)":                  "'+SUM(1,2)",
		"-2+3":                       "'-2+3",
		"@cmd":                       "'@cmd",
		"\tlead":                     `'\x09lead`,
		"\rlead":                     `'\x0dlead`,
		"in\x1bside":                 `in\x1bside`,
		"two\nlines\r":               `two\x0alines\x0d`,
		"mid\ttab":                   `mid\x09tab`,
		"ann":                        "ann",
		"a=b":                        "a=b",
		"":                           "",
	} {
		if got := CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}
