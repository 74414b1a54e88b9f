package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/servers"
	"github.com/mcplab/mcplab/lab/clientscenario"
)

// configNotePrefix starts the transcript note in which the grader records
// the configuration the rig wrote for the client: relay sockets and free
// ports, which mean nothing to a student watching `lab run`.
const configNotePrefix = "configuration: "

// isRigConfigNote reports whether ev is the note of the rig's own
// configuration, which `lab run` leaves out of what it prints.
func isRigConfigNote(ev grading.Event) bool {
	return ev.Kind == grading.EventNote && strings.HasPrefix(ev.Text, configNotePrefix)
}

// studentConfig is the servers.json a student writes for the scenario's
// servers, in the shape of the lesson's own servers.json: a stdio server
// as the `lab serve NAME` command that runs it, an HTTP server at the
// address `lab serve NAME` listens on, each with the scenario's timeoutMs.
func studentConfig(sc *clientscenario.Scenario) (string, error) {
	var b strings.Builder
	b.WriteString("{\"servers\": {")
	for i, s := range sc.Servers {
		ref, err := servers.Lookup(s.Server)
		if err != nil {
			return "", fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		var parts []string
		if s.Transport == "http" {
			addr := ref.Addr
			if addr == "" {
				addr = "127.0.0.1:PORT"
			}
			parts = append(parts, `"url": `+runQuoteJSON("http://"+addr+ref.Path))
		} else {
			parts = append(parts, `"command": "lab"`, `"args": ["serve", `+runQuoteJSON(ref.Name)+`]`)
		}
		if s.Timeout > 0 {
			parts = append(parts, fmt.Sprintf(`"timeoutMs": %d`, s.Timeout.Milliseconds()))
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n  %s: {%s}", runQuoteJSON(s.Alias), strings.Join(parts, ", "))
	}
	b.WriteString("\n}}\n")
	return b.String(), nil
}

// rigSubstitutions is the one line that says how the configuration the
// client is given differs from studentConfig: the lab plays every server
// itself, a stdio one through `lab relay`, an HTTP one on a free port.
func rigSubstitutions(sc *clientscenario.Scenario) string {
	var said []string
	for _, s := range sc.Servers {
		switch {
		case s.Down:
			said = append(said, s.Alias+" cannot be reached, on purpose")
		case s.Transport == "http":
			said = append(said, s.Alias+" listens on a free port of 127.0.0.1")
		default:
			said = append(said, fmt.Sprintf("%s is started as `lab relay SOCKET` (a pipe to the lab's own %s server)", s.Alias, s.Server))
		}
	}
	return "lab run: the lab plays these servers itself and records every byte; the --config file your client is given differs from the one above only in that " +
		runAndList(said) + "."
}

// runAndList writes "a", "a and b", "a, b and c".
func runAndList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// runQuoteJSON writes s as a JSON string.
func runQuoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
