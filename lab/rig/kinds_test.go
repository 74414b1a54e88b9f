package rig

import (
	"testing"

	"github.com/mcplab/mcplab/lab/event"
)

// The rig's kinds are the lab's one set: a stdio server's line and an HTTP
// answer's message are both event.Answer, and a transcript still says
// "eof" and "gone" where the rig always has.
func TestKindsAreTheLabsOneSet(t *testing.T) {
	if KindReply != event.Answer || KindAnswer != event.Answer || KindSend != event.Send || KindEOF != event.Close || KindGone != event.Exit {
		t.Errorf("the rig's kinds are not the lab's: reply %q, answer %q, send %q, eof %q, gone %q", KindReply, KindAnswer, KindSend, KindEOF, KindGone)
	}
	for k, want := range map[Kind]string{KindStart: "start", KindSend: "send", KindAnswer: "answer", KindEOF: "eof", KindGone: "gone",
		KindPost: "post", KindStatus: "status", KindHeld: "held", KindCut: "cut", KindRefused: "refused", KindNotKept: "not-kept"} {
		if got := Word(k); got != want {
			t.Errorf("Word(%q) = %q, want %q", k, got, want)
		}
	}
}
