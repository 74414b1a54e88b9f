package client

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Line renders the event as one transcript line, as `lab run` prints it:
// "-> " for a chunk sent (its newlines shown as " | "), "stderr " for a log
// line, "<- " for an answer, "-- " for the rest. With withTime, a column with
// the time since the start comes first. Control characters and invalid UTF-8
// from the server are shown escaped, so a transcript never drives a terminal.
func (e Event) Line(withTime bool) string {
	var text string
	switch e.Kind {
	case EventSend:
		text = "-> " + ShowChunk(e.Text)
	case EventStderr:
		text = "stderr " + Printable(e.Text)
	case EventAnswer:
		text = "<- " + Printable(e.Text)
	case EventExit:
		text = "-- server " + e.Text
	default:
		text = "-- " + Printable(e.Text)
	}
	if withTime {
		return fmt.Sprintf("%6dms %s", e.At.Round(time.Millisecond).Milliseconds(), text)
	}
	return text
}

// ShowChunk shows a chunk on one line: the trailing newline dropped and the
// newlines inside shown as " | ".
func ShowChunk(chunk string) string {
	chunk = strings.TrimRight(chunk, "\n")
	parts := strings.Split(chunk, "\n")
	for i, p := range parts {
		parts[i] = Printable(strings.TrimSuffix(p, "\r"))
	}
	return strings.Join(parts, " | ")
}

// Printable escapes what a terminal would act on: control characters (other
// than tab) as \xNN or \u00NN, and bytes that are not UTF-8 as \xNN.
func Printable(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c >= 0x7f {
			return false
		}
	}
	return true
}
