package serverlesson

import (
	"fmt"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/mcplab/mcplab/lab/scenario"
)

// cutStyles are the ways a sweep cuts the lesson's messages into writes.
func cutStyles() []string {
	return []string{
		"one byte per write",
		"every message in one write",
		"random cuts of 1 to 40 bytes",
		"cuts inside multi-byte characters and JSON strings",
	}
}

// sweepScenarios builds n scenarios that replay the messages of the lesson's
// scenarios that end by closing stdin (and wait for nothing of their own, and
// send no line that can end a server: joined, such a line would hide the
// evidence after it), cut into writes
// at places chosen by a random source seeded with seed and the sweep's
// number, so any failing sweep can be replayed exactly with the same seed.
func sweepScenarios(base []*scenario.Scenario, n int, seed int64) ([]*scenario.Scenario, error) {
	var data []byte
	var expect []scenario.Expectation
	for _, sc := range base {
		if sc.Ends() != scenario.StepClose || hasAwait(sc) || len(sc.Orders) > 0 {
			continue
		}
		lines, err := sentLines(sc)
		if err != nil {
			return nil, err
		}
		if hasFatal(lines) {
			continue
		}
		data = append(data, sc.Sent()...)
		expect = append(expect, sc.Expect...)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("the lesson has no scenario a sweep can replay")
	}
	var out []*scenario.Scenario
	for i := 1; i <= n; i++ {
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
		styles := cutStyles()
		style := (i - 1) % len(styles)
		cuts := cutPoints(data, style, rng)
		sc := &scenario.Scenario{
			Name:   fmt.Sprintf("sweep-%d-of-%d (cuts %d, %s)", i, n, seed, styles[style]),
			Parts:  map[string][]byte{},
			Expect: expect,
		}
		prev := 0
		for k, c := range append(cuts, len(data)) {
			sc.Steps = append(sc.Steps, scenario.Step{Kind: scenario.StepSend, At: time.Duration(k) * 200 * time.Microsecond, Data: data[prev:c]})
			prev = c
		}
		sc.Steps = append(sc.Steps, scenario.Step{Kind: scenario.StepClose, At: time.Duration(len(cuts)+1)*200*time.Microsecond + 150*time.Millisecond})
		sc.AddWaits(scenario.DefaultWait)
		out = append(out, sc)
	}
	return out, nil
}

// hasAwait reports whether the scenario waits for an answer of its own
// accord, or kills the server; the await added before a close does not count.
func hasAwait(sc *scenario.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Kind == scenario.StepAwait && !st.Implicit || st.Kind == scenario.StepKill || st.Kind == scenario.StepClose && st.Early {
			return true
		}
	}
	return false
}

// cutPoints returns the offsets, in increasing order, where writes begin.
func cutPoints(data []byte, style int, rng *rand.Rand) []int {
	var cuts []int
	switch style {
	case 0:
		for i := 1; i < len(data); i++ {
			cuts = append(cuts, i)
		}
	case 1:
		// one write
	case 2:
		for i := 1 + rng.IntN(40); i < len(data); i += 1 + rng.IntN(40) {
			cuts = append(cuts, i)
		}
	case 3:
		inString := false
		for i := 1; i < len(data); i++ {
			if data[i-1] == '"' {
				inString = !inString
			}
			inside := !utf8.RuneStart(data[i]) || inString
			if inside && rng.IntN(3) == 0 {
				cuts = append(cuts, i)
			}
		}
	}
	return cuts
}

func hasFatal(lines []*sentLine) bool {
	for _, l := range lines {
		if l.fatal() {
			return true
		}
	}
	return false
}
