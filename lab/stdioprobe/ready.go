package stdioprobe

import (
	"strings"
	"time"
)

// Readiness says how a server shows it is ready for the scenario to start.
// The zero value waits for a stderr line that contains "ready".
type Readiness struct {
	// Stderr is a text that a stderr line holds, in any case, once the
	// server is ready; "" means "ready".
	Stderr string
	// Probe, when set, is one request line (with its newline) sent before
	// the scenario: the server is ready when its first line on stdout comes.
	// That line answers the probe: it goes in the transcript as a note, not
	// among the run's answers.
	Probe []byte
	// None starts the scenario at once.
	None bool
}

// stderrReady reports whether a stderr line shows readiness.
func (r Readiness) stderrReady(line string) bool {
	if r.None || len(r.Probe) > 0 {
		return false
	}
	want := r.Stderr
	if want == "" {
		want = "ready"
	}
	return strings.Contains(strings.ToLower(line), strings.ToLower(want))
}

// describe says, for a note, what the client waited for.
func (r Readiness) describe(within time.Duration) string {
	if len(r.Probe) > 0 {
		return "no answer to the readiness probe within " + within.String()
	}
	if r.Stderr == "" {
		return "no ready line on stderr within " + within.String()
	}
	return "no stderr line containing \"" + r.Stderr + "\" within " + within.String()
}
