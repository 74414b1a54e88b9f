// Package clientscenario reads the grading scenarios of a client lesson,
// in which the student writes the MCP client and the lab plays the
// servers: a txtar archive per scenario naming the servers the lab's rig
// plays (and how they misbehave), the commands the student's client is
// given, and what its answers and its traffic must show (see Scenario).
// It parses; lab/clientplay plays a scenario and grading/clientlesson
// judges the record.
package clientscenario

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/answerpath"
	"github.com/mcplab/mcplab/lab/rig"
	"github.com/mcplab/mcplab/lab/txtar"
)

// A Scenario is one grading scenario of a client lesson: the servers
// the lab plays, the commands it gives the client, and what the answers
// and the traffic must show. It is a txtar archive with three files:
//
//	-- servers --
//	notes    stdio  notes    timeout=10s
//	tickets  http   tickets  timeout=10s cut=search
//	-- commands --
//	{"command":"list_tools"}
//	-- expect --
//	1 namespacing  answer tools[name=mcp__notes__search] present
//
// A servers line is an alias, a transport (stdio or http), a server of
// `lab serve` and options: timeout=DURATION (the timeoutMs the client is
// given), down (listed, but nothing answers there), hold=HOOK (the
// requests HOOK picks are never answered), cut=HOOK (the answer to them
// breaks off before its response). A HOOK is a tool's name (hold=search:
// its calls) or METHOD:NAME for another request that names something
// (hold=resources/read:notes://retry, cut=prompts/get:summary), or a METHOD
// alone for every request of it (see rig.ParseHook).
//
// An expect line is the command's number (from 1), a check id, and one of:
//
//	answer PATH OP [VALUE]   the client's answer, tested in lab/answerpath's
//	                         language: PATH is members joined by dots, [k=v]
//	                         picks the array element whose k is v, [N] the
//	                         Nth element, a final # takes a length (of a
//	                         string, in characters); OP is =, !=, present,
//	                         absent, prefix, suffix or contains; VALUE is JSON
//	reaches ALIAS TOOL       while the command ran, a tools/call of TOOL, by
//	                         that name, reached ALIAS
//	notified ALIAS           the answer ALIAS streamed to that call held a
//	                         notification before the response
//	within SECONDS           the answer came within SECONDS of the command
//	within timeout+SECONDS   the same, counted from the scenario's longest
//	                         server timeout: the timeoutMs the client was
//	                         given, plus SECONDS to answer once it passed
//	needs ALIAS TOOL         unless a tools/call of TOOL reached ALIAS, the
//	                         check's other lines for this command are not
//	                         judged (the check is skipped, not failed)
//	needs-answer PATH OP V   likewise, unless the answer shows this
//	needs-known-name         likewise, unless the command's tools/call
//	                         named a tool its server listed
type Scenario struct {
	Name     string
	Comment  string
	Servers  []Server
	Commands []string
	Expect   []Expectation
}

// Server is one line of a client scenario's servers file.
type Server struct {
	Alias, Transport, Server string
	Timeout                  time.Duration
	Down                     bool
	// Hold and Cut are the requests the rig holds, and whose answer it
	// breaks off (hold=HOOK, cut=HOOK; see rig.ParseHook).
	Hold, Cut rig.Hook
}

// Expectation is one line of a client scenario's expect file.
type Expectation struct {
	Line    int // in the expect file
	Command int // from 1
	Check   string
	// Kind is answer, reaches, notified, within, needs, needs-answer or
	// needs-known-name.
	Kind string
	// Test is an answer's test (answer and needs-answer lines): Path, Op
	// and Value.
	answerpath.Test
	// Alias and Tool name a server and a tool; Within is a duration
	// (for "within timeout+N", the scenario's longest server timeout
	// plus N, worked out once the servers are read).
	Alias, Tool string
	Within      time.Duration
	// AfterTimeout is set when Within was written timeout+N: it holds N
	// until the servers are known.
	AfterTimeout bool
	// Text is the line as written, for messages.
	Text string
}

// Parse reads the client scenario name from its txtar archive data.
func Parse(name string, data []byte) (*Scenario, error) {
	files, err := txtar.Files(data)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", name, err)
	}
	sc := &Scenario{Name: name}
	if i := strings.Index(string(data), "\n-- "); i >= 0 {
		sc.Comment = strings.TrimSpace(string(data[:i]))
	}
	got := map[string]bool{}
	for _, f := range files {
		got[f.Name] = true
		switch f.Name {
		case "servers":
			if sc.Servers, err = parseServers(f.Data); err != nil {
				return nil, fmt.Errorf("scenario %s: servers: %w", name, err)
			}
		case "commands":
			for _, line := range strings.Split(string(f.Data), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if !json.Valid([]byte(line)) {
					return nil, fmt.Errorf("scenario %s: command %d is not JSON: %s", name, len(sc.Commands)+1, line)
				}
				sc.Commands = append(sc.Commands, line)
			}
		case "expect":
			for i, line := range strings.Split(string(f.Data), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				e, err := ParseExpectation(line)
				if err != nil {
					return nil, fmt.Errorf("scenario %s: expect line %d: %w", name, i+1, err)
				}
				e.Line = i + 1
				if e.Command < 1 || e.Command > len(sc.Commands) {
					return nil, fmt.Errorf("scenario %s: expect line %d: there is no command %d", name, i+1, e.Command)
				}
				sc.Expect = append(sc.Expect, e)
			}
		default:
			return nil, fmt.Errorf("scenario %s: unknown file %q (want servers, commands, expect)", name, f.Name)
		}
	}
	for _, need := range []string{"servers", "commands", "expect"} {
		if !got[need] {
			return nil, fmt.Errorf("scenario %s has no %s file", name, need)
		}
	}
	aliases := map[string]bool{}
	for _, s := range sc.Servers {
		aliases[s.Alias] = true
	}
	for i, e := range sc.Expect {
		if e.Alias != "" && !aliases[e.Alias] {
			return nil, fmt.Errorf("scenario %s: expect line %d names %q, which is not a server of the scenario", name, e.Line, e.Alias)
		}
		if e.AfterTimeout {
			timeout := sc.DeclaredTimeout()
			if timeout == 0 {
				return nil, fmt.Errorf("scenario %s: expect line %d: within timeout+N needs a server with timeout=DURATION, and none has one", name, e.Line)
			}
			sc.Expect[i].Within = timeout + e.Within
		}
	}
	return sc, nil
}

func parseServers(data []byte) ([]Server, error) {
	var out []Server
	seen := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 3 {
			return nil, fmt.Errorf("line %d: want ALIAS TRANSPORT SERVER [OPTIONS]", i+1)
		}
		s := Server{Alias: f[0], Transport: f[1], Server: f[2]}
		if s.Transport != "stdio" && s.Transport != "http" {
			return nil, fmt.Errorf("line %d: transport %q: want stdio or http", i+1, s.Transport)
		}
		if seen[s.Alias] {
			return nil, fmt.Errorf("line %d: alias %q is given twice", i+1, s.Alias)
		}
		seen[s.Alias] = true
		for _, o := range f[3:] {
			k, v, _ := strings.Cut(o, "=")
			switch {
			case k == "down" && v == "":
				s.Down = true
			case k == "timeout":
				d, err := time.ParseDuration(v)
				if err != nil || d <= 0 {
					return nil, fmt.Errorf("line %d: timeout %q is not a duration", i+1, v)
				}
				s.Timeout = d
			case (k == "hold" || k == "hang" || k == "cut") && v != "":
				// hold= is hold='s former spelling, still read in folders
				// written before.
				h, err := rig.ParseHook(v)
				if err != nil {
					return nil, fmt.Errorf("line %d: %s: %w", i+1, o, err)
				}
				if k == "cut" {
					s.Cut = h
				} else {
					s.Hold = h
				}
			default:
				return nil, fmt.Errorf("line %d: unknown option %q (want timeout=D, down, hold=TOOL, cut=TOOL)", i+1, o)
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no servers")
	}
	return out, nil
}

// ParseExpectation reads one line of a client scenario's expect file.
func ParseExpectation(line string) (Expectation, error) {
	e := Expectation{Text: line}
	f := strings.Fields(line)
	if len(f) < 3 {
		return e, fmt.Errorf("want COMMAND CHECK KIND ...")
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return e, fmt.Errorf("%q is not a command number", f[0])
	}
	e.Command, e.Check, e.Kind = n, f[1], f[2]
	args := f[3:]
	switch e.Kind {
	case "answer", "needs-answer":
		rest := strings.TrimSpace(line[strings.Index(line, " "+e.Kind+" ")+len(e.Kind)+2:])
		if e.Test, err = answerpath.ParseTest(rest); err != nil {
			return e, err
		}
	case "reaches", "needs":
		if len(args) != 2 {
			return e, fmt.Errorf("%s takes a server and a tool", e.Kind)
		}
		e.Alias, e.Tool = args[0], args[1]
	case "needs-known-name":
		if len(args) != 0 {
			return e, fmt.Errorf("needs-known-name takes nothing more")
		}
	case "notified":
		if len(args) != 1 {
			return e, fmt.Errorf("notified takes a server")
		}
		e.Alias = args[0]
	case "within":
		if len(args) != 1 {
			return e, fmt.Errorf("within takes a number of seconds, or timeout+SECONDS")
		}
		n := args[0]
		if rest, ok := strings.CutPrefix(n, "timeout+"); ok {
			e.AfterTimeout, n = true, rest
		}
		s, err := strconv.ParseFloat(n, 64)
		if err != nil || s <= 0 || s > 3600 {
			return e, fmt.Errorf("within %q: want a number of seconds (at most 3600), or timeout+SECONDS", args[0])
		}
		e.Within = time.Duration(s * float64(time.Second))
	default:
		return e, fmt.Errorf("unknown kind %q (want answer, reaches, notified, within, needs, needs-answer, needs-known-name)", e.Kind)
	}
	return e, nil
}

// NonEmpty returns s, or or when s is empty.
func NonEmpty(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// precondition reports whether the line is a condition for judging the
// others of its command and check rather than a test of its own.
func (e Expectation) Precondition() bool {
	return e.Kind == "needs" || e.Kind == "needs-answer" || e.Kind == "needs-known-name"
}

// declaredTimeout is the longest timeoutMs the scenario gives the client
// for one of its servers, at time scale 1; 0 when it gives none.
func (sc *Scenario) DeclaredTimeout() time.Duration {
	var d time.Duration
	for _, s := range sc.Servers {
		d = max(d, s.Timeout)
	}
	return d
}

// hasStdio reports whether the scenario has a stdio server, which the
// client has to end when its stdin ends.
func (sc *Scenario) HasStdio() bool {
	for _, s := range sc.Servers {
		if s.Transport == "stdio" && !s.Down {
			return true
		}
	}
	return false
}
