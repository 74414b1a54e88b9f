package clientplay

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode"

	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/textesc"
)

// Player is lab run's player of a client lesson's scenario: the lab
// plays the scenario's servers, and the transcript shows the commands,
// every message between the client and each server, and the answers.
// With no COMMAND the client is the lesson's reference client.
type Player struct {
	play.Source
	// Client is the reference client, as `lab client Client` starts it.
	Client string
	// Folder is the lesson's folder, whose data its servers serve.
	Folder func() (fs.FS, error)
	// Servers finds the servers the scenario names.
	Servers Servers
}

// Load reads the scenario and names the client: COMMAND, or the lesson's
// reference client started by the lab binary, which also plays the relay.
func (p Player) Load(req play.Request) (play.Run, error) {
	name, data, err := p.Scenario(req.File)
	if err != nil {
		return nil, err
	}
	sc, err := clientscenario.Parse(name, data)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, play.Internal(fmt.Errorf("finding the lab binary: %w", err))
	}
	starter := proc.Command{Path: self, Args: []string{"client", p.Client}}
	if len(req.Command) > 0 {
		starter = proc.Command{Path: req.Command[0], Args: req.Command[1:]}
	}
	dir, err := p.Folder()
	if err != nil {
		return nil, play.Internal(err)
	}
	return &watchRun{sc: sc, starter: starter, dir: dir, opts: Options{Relay: []string{self, "relay"}, Servers: p.Servers}, times: req.Times}, nil
}

// watchRun is a client scenario lab run plays: the scenario, the client
// to start, the lesson's files and how to reach the servers.
type watchRun struct {
	sc      *clientscenario.Scenario
	starter proc.Command
	dir     fs.FS
	opts    Options
	times   bool
}

// Preface is the servers.json a student would write for the scenario's
// servers, and the one line that says how the configuration the client
// is given differs from it (see StudentConfig and RigSubstitutions).
func (r *watchRun) Preface() (string, string, error) {
	config, err := StudentConfig(r.sc, r.opts.Servers)
	if err != nil {
		return "", "", err
	}
	return "-- servers.json, as you would write it for these servers:\n" + config, RigSubstitutions(r.sc), nil
}

// Play plays the scenario and hands over each event with its line (see
// Line), leaving out the note of the rig's own configuration (relay
// sockets, free ports), which the student never writes.
func (r *watchRun) Play(ctx context.Context, onEvent func(event.Event, string)) error {
	show := func(ev event.Event) {
		if IsRigConfigNote(ev) {
			return
		}
		if ev.Scenario == "" {
			ev.Scenario = r.sc.Name
		}
		onEvent(ev, Line(ev, r.times))
	}
	return Watch(ctx, r.sc, r.starter, r.dir, r.opts, show)
}

// IsRigConfigNote reports whether ev is the note of the rig's own
// configuration, which `lab run` leaves out of what it shows.
func IsRigConfigNote(ev event.Event) bool {
	return ev.Kind == event.Note && strings.HasPrefix(ev.Text, ConfigNotePrefix)
}

// Line renders one event of a client run: "you -> client" for a command,
// "client -> you" for an answer, "client -> SERVER#N" and "SERVER#N ->
// client" for the traffic, "--" for the rest. Long lines are cut in the
// middle, and what a terminal would act on is escaped.
func Line(ev event.Event, times bool) string {
	var text string
	switch {
	case ev.OfRig():
		text = trafficLine(ev)
	case ev.Kind == event.Send:
		text = "you -> client  " + clipMiddle(ev.Text)
	case ev.Kind == event.Answer:
		text = "client -> you  " + clipMiddle(ev.Text)
	case ev.Kind == event.Stderr:
		text = "client stderr  " + clipMiddle(ev.Text)
	case ev.Kind == event.Exit:
		text = "-- client " + ev.Text
	case ev.Kind == event.Close:
		text = "-- stdin closed"
	default:
		text = "-- " + clipMiddle(ev.Text)
	}
	if times {
		return fmt.Sprintf("%6dms %s", ev.At.Milliseconds(), text)
	}
	return text
}

// trafficLine renders an event the rig saw: "client -> SERVER#N" before
// what the client sent (an HTTP request's MCP headers in brackets before
// its body), "SERVER#N -> client" before what the server sent back ("HTTP
// 200" and the content type for an answer's status), "-- SERVER#N" and
// the rig's word for the rest.
func trafficLine(ev event.Event) string {
	where := fmt.Sprintf("%s#%d", ev.Server, ev.Conn)
	body := strings.TrimRightFunc(ev.Text, unicode.IsSpace)
	switch ev.Kind {
	case event.Send:
		return "   client -> " + where + "  " + clipMiddle(body)
	case event.Post:
		headers := "[" + event.HeaderSummary(ev.Header) + "]"
		if body != "" {
			headers += " "
		}
		return "   client -> " + where + "  " + textesc.Line(headers) + clipMiddle(body)
	case event.Answer:
		return "   " + where + " -> client  " + clipMiddle(body)
	case event.Status:
		return "   " + where + " -> client  " + clipMiddle(strings.TrimSpace(fmt.Sprintf("HTTP %d %s", ev.Status, body)))
	}
	return "-- " + clipMiddle(ev.TranscriptText())
}

// clipMiddle keeps a transcript line readable: a line longer than 240
// characters keeps its start and end around a count of what was left out.
func clipMiddle(s string) string {
	s = textesc.Line(s)
	r := []rune(s)
	if len(r) <= 240 {
		return s
	}
	unit := "characters"
	if len(r)-240 == 1 {
		unit = "character"
	}
	return fmt.Sprintf("%s ... [%d %s left out] ... %s", string(r[:160]), len(r)-240, unit, string(r[len(r)-80:]))
}

// StudentConfig is the servers.json a student writes for the scenario's
// servers, in the shape of the lesson's own servers.json: a stdio server
// as the `lab serve NAME` command that runs it, an HTTP server at the
// address `lab serve NAME` listens on, each with the scenario's timeoutMs.
func StudentConfig(sc *clientscenario.Scenario, servers Servers) (string, error) {
	var b strings.Builder
	b.WriteString("{\"servers\": {")
	for i, s := range sc.Servers {
		ref, err := servers(s.Server)
		if err != nil {
			return "", fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		var parts []string
		if s.Transport == "http" {
			addr := ref.Addr
			if addr == "" {
				addr = "127.0.0.1:PORT"
			}
			parts = append(parts, `"url": `+quoteJSON("http://"+addr+ref.Path))
		} else {
			parts = append(parts, `"command": "lab"`, `"args": ["serve", `+quoteJSON(s.Server)+`]`)
		}
		if s.Timeout > 0 {
			parts = append(parts, fmt.Sprintf(`"timeoutMs": %d`, s.Timeout.Milliseconds()))
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n  %s: {%s}", quoteJSON(s.Alias), strings.Join(parts, ", "))
	}
	b.WriteString("\n}}\n")
	return b.String(), nil
}

// RigSubstitutions is the one line that says how the configuration the
// client is given differs from StudentConfig: the lab plays every server
// itself, a stdio one through `lab relay`, an HTTP one on a free port.
func RigSubstitutions(sc *clientscenario.Scenario) string {
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
		andList(said) + "."
}

// andList writes "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// quoteJSON writes s as a JSON string.
func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
