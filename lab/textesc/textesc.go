// Package textesc shows text a student controls in a way nothing reading it
// can act on: a terminal, a log parser, an XML reader, a Markdown renderer
// or a spreadsheet. It is the one place the lab's escapers live; each
// caller picks the context it writes to. CountOf words the counts such a
// text gives ("1 process", "3 processes").
package textesc

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible returns s with everything a terminal, a log parser or an XML
// reader could act on shown as a visible escape instead:
//
//   - a byte that is not valid UTF-8 becomes \xNN (so "\xff" reads as \xff);
//   - a C0 control other than newline and tab, and DEL, becomes \xNN (ESC is
//     shown as \x1b), except carriage return, shown as \r;
//   - a C1 control (U+0080 to U+009F) becomes \u0080 … \u009f;
//   - an invisible character that reorders or hides text (see Hidden) and
//     the XML non-characters U+FFFE and U+FFFF become \uNNNN.
//
// Newline and tab are kept. Backslashes are not doubled, so the escapes are
// for reading, not for decoding back.
func Visible(s string) string { return escape(s, true) }

// Line is Visible for text that must stay on one line: newline is shown as
// \x0a and carriage return as \x0d; tab is kept.
func Line(s string) string { return escape(s, false) }

func escape(s string, multiline bool) string {
	if plain(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t', r == '\n' && multiline:
			b.WriteRune(r)
		case r == '\r' && multiline:
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// plain reports whether s is printable ASCII and tabs (and newlines, when
// they are kept) only: the common case, which needs no copy.
func plain(s string, newlines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t' && !(c == '\n' && newlines)) || c >= 0x7f {
			return false
		}
	}
	return true
}

// Hidden reports whether r is an invisible character that can reorder, hide
// or split the text around it, or is not allowed in XML 1.0. The zero-width
// joiner is left alone: emoji sequences need it and it moves nothing.
func Hidden(r rune) bool {
	switch {
	case r == 0x061c, // Arabic letter mark
		r == 0x200b, r == 0x200c, r == 0x200e, r == 0x200f, // zero-width space and non-joiner, LRM, RLM
		r >= 0x202a && r <= 0x202e, // bidi embeddings and overrides
		r == 0x2028, r == 0x2029,   // line and paragraph separators
		r >= 0x2060 && r <= 0x2064, // word joiner and invisible operators
		r >= 0x2066 && r <= 0x206f, // bidi isolates and deprecated formats
		r == 0xfeff,                // byte order mark
		r >= 0xfff9 && r <= 0xfffb, // interlinear annotation
		r == 0xfffe, r == 0xffff:   // not characters; illegal in XML 1.0
		return true
	}
	return false
}

// Markdown makes s safe as one line of Markdown text or a table cell:
// Line's escapes, then a backslash only where Markdown or HTML would act on
// a character there: always before ` * _ [ ] < > | ~ &, before a backslash
// that would escape what follows it, before a # + - = or the . or ) of a
// number that would start a heading, list or rule at the start, and inside
// "://" and "www." so no link is made. Other text ({"waited": N}, -32700 in
// the middle of a title) stays as it is, so the raw file reads as plain text.
func Markdown(s string) string {
	s = Line(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	start := len(s) - len(strings.TrimLeft(s, " "))
	digits := start
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte("`*_[]<>|~&", c) >= 0:
			b.WriteByte('\\')
		case c == '\\' && (i+1 == len(s) || isASCIIPunct(s[i+1])):
			b.WriteByte('\\')
		case i == start && strings.IndexByte("#+-=", c) >= 0:
			b.WriteByte('\\')
		case i == digits && digits > start && (c == '.' || c == ')'):
			b.WriteByte('\\')
		case c == '/' && i >= 1 && strings.HasPrefix(s[i-1:], "://"):
			b.WriteByte('\\')
		case c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// isASCIIPunct reports whether c is one of the ASCII punctuation characters
// a Markdown backslash escapes.
func isASCIIPunct(c byte) bool {
	return c < 0x80 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// CSVCell makes s safe as a cell of a CSV file a spreadsheet opens: Line's
// escapes, and tab shown as \\x09 (so no control character, tab, carriage
// return or newline is left), then, as OWASP recommends against formula injection, a single
// quote before a cell that begins with =, +, -, @, tab or carriage return,
// so the spreadsheet takes it as text. A leading \x09 or \x0d escape is
// quoted too: it stands for such a character.
func CSVCell(s string) string {
	e := strings.ReplaceAll(Line(s), "\t", `\x09`)
	if e == "" {
		return e
	}
	if strings.ContainsRune("=+-@", rune(e[0])) || strings.HasPrefix(e, `\x09`) || strings.HasPrefix(e, `\x0d`) {
		return "'" + e
	}
	return e
}
