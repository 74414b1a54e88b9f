package stdioprobe

import (
	"strings"

	"github.com/mcplab/mcplab/lab/event"
)

// probeAnswered starts the note Play writes when the server's first stdout
// line, the readiness probe's answer, comes (see Play).
const probeAnswered = "the server answered the readiness probe"

// Shown reports whether the whole record of run holds the sign of
// readiness that r waits for: a matching stderr line, or an answer to the
// probe. Unlike Run.Ready, which says whether the sign came before the
// client stopped waiting for it, Shown is read after every line the
// server wrote has been read, so it does not depend on which of the sign
// and the server's end the client saw first. With None it is always true.
func (r Readiness) Shown(run *Run) bool {
	if r.None || run.Ready || run.ReadySeen && len(r.Probe) == 0 {
		return true
	}
	for _, ev := range run.Events {
		switch {
		case len(r.Probe) > 0 && ev.Kind == event.Note && strings.HasPrefix(ev.Text, probeAnswered):
			return true
		case ev.Kind == event.Stderr && r.stderrReady(ev.Text):
			return true
		}
	}
	return false
}

// Describe says in a few words what sign of readiness r waits for, for a
// student: "a stderr line containing \"ready\"".
func (r Readiness) Describe() string {
	switch {
	case r.None:
		return "nothing (the scenario starts at once)"
	case len(r.Probe) > 0:
		return "an answer on stdout to the readiness probe " + strings.TrimSpace(string(r.Probe))
	case r.Stderr == "":
		return "a stderr line containing \"ready\""
	}
	return "a stderr line containing \"" + r.Stderr + "\""
}
