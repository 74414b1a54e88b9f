package textesc

import (
	"bytes"
	"testing"
)

// Writer, as lab capture and lab validate print through it: control
// characters become escapes, text already escaped passes unchanged, and
// each Write reports the bytes it was given.
func TestWriterForCaptureAndValidate(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	for _, s := range []string{"lab validate: bad\x1b[2J\x07.jsonl is a named pipe\n", "plain \\x1b already\ttab\n", "\xff\u202e\n"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Errorf("Write(%q) = %d, %v", s, n, err)
		}
	}
	want := "lab validate: bad\\x1b[2J\\x07.jsonl is a named pipe\nplain \\x1b already\ttab\n\\xff\\u202e\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
