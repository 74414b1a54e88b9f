package stdioprobe

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/textesc"
	"github.com/mcplab/mcplab/lab/wire"
)

// The caps on what a Run keeps of one scenario's output, applied as the
// lines arrive, so that what the client holds of a run is bounded whatever
// the server writes (a flood of bare newlines is a quarter of a million
// lines in 256 KiB). Bytes are capped apart (Options.MaxOutput). They are
// small enough that a lesson's dozen scenarios, each at both caps, fit in
// one transcript (event.TranscriptEventsMax), so a flood in the first
// scenario does not push the later ones out of it.
const (
	// KeptStdoutLines caps the stdout lines a Run keeps of one scenario, as
	// Answers and events. Past it, a line is still kept when it is an
	// answer to an id the scenario sends (at most one answer more than the
	// scenario has lines with that id, see idAllowance), so a server that
	// floods its stdout and then answers is judged on its answers; every
	// other line is counted in Run.StdoutNotKept.
	KeptStdoutLines = 400
	// KeptStderrLines caps the stderr lines a Run keeps of one scenario, as
	// events. Past it the lines are counted (Run.StderrLines counts them
	// all, Run.StderrNotKept those not kept), and the first that shows
	// readiness is still kept.
	KeptStderrLines = 200
)

// NotKept counts the lines of one stream of a run that were read but not
// kept (see KeptStdoutLines).
type NotKept struct {
	// Lines and Bytes count them; Bytes includes their newlines.
	Lines int
	Bytes int64
	// Responses counts those of them shaped as JSON-RPC responses (see
	// wire.ResponseShaped): answers no line of the scenario asks for, or
	// asks for again. The other lines are not responses at all.
	Responses int
}

// add counts one line not kept.
func (n *NotKept) add(line string, response bool) {
	n.Lines++
	n.Bytes += int64(len(line)) + 1
	if response {
		n.Responses++
	}
}

// Say says, for a transcript, what was not kept of stream: "41203 more
// lines (5.6 MB) on stdout were counted, not kept". It is "" when every
// line was kept.
func (n NotKept) Say(stream string, kept int) string {
	if n.Lines == 0 {
		return ""
	}
	after := ""
	if stream == "stdout" {
		after = ", and after them the answers to the scenario's ids"
	}
	return fmt.Sprintf("%s (%s) on %s %s counted, not kept: a run keeps the first %d lines of a stream%s",
		textesc.CountOf(n.Lines, "more line", "more lines"), sizeOf(n.Bytes), stream, textesc.Pick(n.Lines, "was", "were"), kept, after)
}

// sizeOf says a byte count in the unit a reader takes in at a glance.
func sizeOf(n int64) string {
	switch {
	case n < 10_000:
		return textesc.CountOf(int(n), "byte", "bytes")
	case n < 1_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}

// idAllowance says, for each id the scenario's lines carry (by its loose
// key, see wire.LooseIDKey), how many answers to it a run keeps past
// KeptStdoutLines: one per line with that id, and one more, so that an id
// answered twice still shows. Lines with no usable id (notifications, bad
// lines, id null) count under null, the id a server answers a line it
// cannot read with.
func idAllowance(sc *scenario.Scenario) map[string]int {
	var sent []byte
	for _, st := range sc.Steps {
		if st.Kind == scenario.StepSend {
			sent = append(sent, st.Data...)
		}
	}
	allow := map[string]int{}
	null := wire.LooseIDKey(wire.Null)
	for line := range bytes.SplitSeq(sent, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		key := null
		if json.Unmarshal(line, &msg) == nil && wire.UsableID(wire.Compact(msg.ID)) {
			key = wire.LooseIDKey(wire.Compact(msg.ID))
		}
		if allow[key] == 0 {
			allow[key] = 1 // the answer again
		}
		allow[key]++
	}
	if allow[null] == 0 {
		allow[null] = 1
	}
	return allow
}

// keepAnswer reports whether the recorder keeps one more stdout line, line,
// when kept lines are already held; past the cap it keeps a line shaped as
// a response to an id of the scenario, taking it from that id's allowance.
func keepAnswer(kept int, line []byte, allow map[string]int) bool {
	if kept < KeptStdoutLines {
		return true
	}
	shaped, id, hasID := wire.ResponseShape(line)
	if !shaped {
		return false
	}
	if !hasID {
		id = wire.Null
	}
	key := wire.LooseIDKey(id)
	if allow[key] <= 0 {
		return false
	}
	allow[key]--
	return true
}
