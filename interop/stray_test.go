package interop_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// strayCase is one row of the stray-output experiment: bytes the server
// writes to stdout before its first answer.
type strayCase struct {
	label string // the row's first cell in the table
	bytes string
}

// strayCases are the rows, in the table's order.
var strayCases = []strayCase{
	{label: "nothing", bytes: ""},
	{label: "`ready` and a newline", bytes: "ready\n"},
	{label: "`ready ` with no newline", bytes: "ready "},
}

// strayClients are the table's columns: every client in its default
// configuration, and the v2 TypeScript client once more with the option
// that makes it speak 2026-07-28.
func strayClients() []interopClient {
	var out []interopClient
	for _, c := range interopClients() {
		if c.skip == "" && (c.mode == "default" || c.mode == "versionNegotiation auto") {
			out = append(out, c)
		}
	}
	return out
}

// strayTableHeader is the first cell of the table's header row, which is how
// the tests find the table in a README.
const strayTableHeader = "Stray output before the first answer"

// The READMEs that carry the observed table: lesson 2's, which students
// read, and the interop README, next to the test.
var strayTableFiles = []string{
	"../lessons/02-json-rpc-on-the-wire/README.md",
	"README.md",
}

// TestStrayOutput runs the seed's experiment: the relay writes stray bytes
// to the client before the helpdesk's first answer, and each client either
// copes or does not. The outcome of each client and row must be the one the
// READMEs' tables show, in the first code span of the cell.
func TestStrayOutput(t *testing.T) {
	server := helpdeskServer(t)
	clients := strayClients()
	var mu sync.Mutex
	observed := map[[2]string]string{} // {row label, column label} -> outcome
	t.Run("observe", func(t *testing.T) {
		for _, row := range strayCases {
			for _, c := range clients {
				t.Run(row.label+" to "+c.label(), func(t *testing.T) {
					t.Parallel()
					r, trs := connectInTime(t, c, row.bytes, server)
					outcome, err := strayOutcome(r, trs)
					if err != nil {
						t.Fatalf("%v\n%s", err, describeTranscripts(trs))
					}
					t.Logf("%s (in %v; failure %q; reported %q)\n%s", outcome, r.elapsed.Round(10e6), r.failure, r.reported, describeTranscripts(trs))
					mu.Lock()
					observed[[2]string{row.label, c.label()}] = outcome
					mu.Unlock()
				})
			}
		}
	})
	if t.Failed() || len(observed) != len(strayCases)*len(clients) {
		return // skipped or failed cells say why; there is no table to compare
	}
	t.Logf("observed:\n%s", strayTable(clients, observed))
	for _, file := range strayTableFiles {
		want, err := readStrayTable(file)
		if err != nil {
			t.Errorf("%s: %v\nthe observed table:\n%s", file, err, strayTable(clients, observed))
			continue
		}
		for _, row := range strayCases {
			for _, c := range clients {
				key := [2]string{row.label, c.label()}
				if got, w := observed[key], want[key]; got != w {
					t.Errorf("%s, row %q, column %q: the table says %q, the clients did %q", file, row.label, c.label(), w, got)
				}
			}
		}
	}
}

// strayOutcome names what a client did in the words of the table: how far
// it got, on which revision, and whether it reported the stray line on the
// side. It also checks the causal story the relay recorded: whenever a
// client gives up waiting, the server had answered.
func strayOutcome(r clientRun, trs []transcript) (string, error) {
	if len(trs) == 0 {
		return "", fmt.Errorf("the client started no server (%s: %s)", r.failedAt, r.failure)
	}
	session := trs[len(trs)-1]
	era := statelessRevision
	if slices.Contains(session.methods(), "initialize") {
		era = legacyRevision
	}
	probed := false
	for _, tr := range trs {
		probed = probed || slices.Contains(tr.methods(), "server/discover")
	}
	var outcome string
	switch {
	case r.connected && r.failure == "":
		outcome = "connects on " + era
		if probed && era == legacyRevision {
			outcome = "falls back to " + legacyRevision
		}
	case r.connected:
		outcome = "connects, then fails at " + r.failedAt
	case r.timedOut:
		outcome = "times out"
	default:
		outcome = "fails"
	}
	if r.timedOut {
		for i, tr := range trs {
			answered := false
			for _, m := range tr.received() {
				answered = answered || (m.Unparsed == "" && m.Result != nil)
			}
			if !answered {
				return "", fmt.Errorf("the client timed out, but server process %d never answered: the timeout is not the stray output's doing", i+1)
			}
		}
	}
	if len(r.reported) > 0 {
		outcome += ", reports the line"
	}
	return outcome, nil
}

// connectInTime is connectThroughRelay, played again while the client gave
// up its probe before the answer reached it: such a client fell back because
// the machine was slow, whatever the stray bytes or the path it takes. It
// stops after lateProbeTries plays, and fails the test if the last was
// late as well.
func connectInTime(t *testing.T, c interopClient, stray string, server []string) (clientRun, []transcript) {
	t.Helper()
	r, trs := connectThroughRelay(t, c, stray, server)
	for try := 1; probeAnsweredLate(r, trs); try++ {
		if try == lateProbeTries {
			t.Fatalf("in each of %d tries the answer to server/discover reached the client only after it had fallen back to initialize: the helpdesk started too slowly for the client's probe timeout, so this run shows the machine's load, not the client's behaviour\n%s", lateProbeTries, describeTranscripts(trs))
		}
		t.Logf("try %d: the answer to server/discover reached the client after it had fallen back (a slow start); playing it again\n%s", try, describeTranscripts(trs))
		r, trs = connectThroughRelay(t, c, stray, server)
	}
	return r, trs
}

// lateProbeTries bounds how often a cell is played when the client gave up
// its probe before the answer came.
const lateProbeTries = 5

// probeAnsweredLate reports whether the client fell back to initialize
// before the server's answer to its server/discover probe was on its way:
// the relay recorded no answer to the probe, or recorded it only after the
// client had sent initialize. The relay records a line before passing it
// on, so an answer recorded after initialize cannot have been read before
// it. A probe answer the stray bytes spoiled on the way (no newline before
// it) was recorded intact in time, and is not late.
func probeAnsweredLate(r clientRun, trs []transcript) bool {
	if !r.connected {
		return false
	}
	var probeID string
	var initAt, answerAt int64
	for _, tr := range trs {
		for _, rec := range tr.records {
			var m wireMessage
			if json.Unmarshal([]byte(rec.Line), &m) != nil {
				continue
			}
			switch {
			case rec.Dir == "c2s" && m.Method == "server/discover" && probeID == "":
				probeID = string(m.ID)
			case rec.Dir == "c2s" && m.Method == "initialize" && initAt == 0:
				initAt = rec.At
			case rec.Dir == "s2c" && probeID != "" && string(m.ID) == probeID && m.Method == "" && answerAt == 0:
				answerAt = rec.At
			}
		}
	}
	if probeID == "" || initAt == 0 {
		return false // no probe, or no fallback
	}
	return answerAt == 0 || answerAt > initAt
}

// strayTable renders observations as the markdown table the READMEs carry.
func strayTable(clients []interopClient, observed map[[2]string]string) string {
	var b strings.Builder
	b.WriteString("| " + strayTableHeader)
	for _, c := range clients {
		b.WriteString(" | " + c.label())
	}
	b.WriteString(" |\n|---")
	for range clients {
		b.WriteString("|---")
	}
	b.WriteString("|\n")
	for _, row := range strayCases {
		b.WriteString("| " + row.label)
		for _, c := range clients {
			b.WriteString(" | `" + observed[[2]string{row.label, c.label()}] + "`")
		}
		b.WriteString(" |\n")
	}
	return b.String()
}

// readStrayTable finds the table whose header starts with strayTableHeader
// in a markdown file and returns, for each row and column label, the first
// code span of the cell.
func readStrayTable(file string) (map[[2]string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var header []string
	out := map[[2]string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if header == nil {
			if cells := tableCells(line); len(cells) > 0 && cells[0] == strayTableHeader {
				header = cells
			}
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break // the table has ended
		}
		cells := tableCells(line)
		if len(cells) > 0 && strings.Trim(cells[0], "-: ") == "" {
			continue // the delimiter row
		}
		if len(cells) != len(header) {
			return nil, fmt.Errorf("a row of the stray-output table has %d cells, the header %d: %s", len(cells), len(header), line)
		}
		for i := 1; i < len(cells); i++ {
			out[[2]string{cells[0], header[i]}] = firstCodeSpan(cells[i])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if header == nil {
		return nil, fmt.Errorf("no table whose header starts with %q", strayTableHeader)
	}
	return out, nil
}

// tableCells splits a markdown table row into its trimmed cells. Code spans
// in these tables hold no '|'.
func tableCells(line string) []string {
	if !strings.HasPrefix(line, "|") {
		return nil
	}
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// firstCodeSpan returns the text of the first `code span` in a cell, or the
// whole cell when it has none.
func firstCodeSpan(cell string) string {
	_, rest, ok := strings.Cut(cell, "`")
	if !ok {
		return cell
	}
	span, _, _ := strings.Cut(rest, "`")
	return span
}
