package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/mcplab/mcplab/internal/servers"
)

// helpText is what "lab help CMD" and "lab CMD -h" say of a command besides
// its synopsis and its flags.
type helpText struct {
	// about says what the command does, in words a student follows.
	about string
	// more, when set, adds a section computed from the lab itself (such as
	// the names of the reference servers), printed after about.
	more func() string
	// exits are every exit status the command uses, with what each means.
	exits []exitDoc
	// examples are command lines that work as written, each with a line
	// that says what it does. Those that name a lesson's files work from
	// the root of a clone.
	examples []example
}

// exitOther stands in an exitDoc for the exit statuses of another program
// a command passes on; the help shows it as N.
const exitOther = -1

// exitDoc is one exit status and what it means for the command.
type exitDoc struct {
	code  int
	means string
}

// example is one command line and what it does.
type example struct {
	says string
	line string
}

// bugExit is exit status 3, said the same way for every command that uses it.
func bugExit() exitDoc {
	return exitDoc{exitInternal, "the lab itself failed (not your program): the message says what failed; " +
		"if it is not the machine (a full disk, say), report it as a bug"}
}

// helpFor returns the help of the command name, and whether it has one.
func helpFor(name string) (helpText, bool) {
	h, ok := helpTexts()[name]
	return h, ok
}

// helpTexts holds the help of every command, keyed by its name in the
// command table (see commands). A test checks that each command has one.
func helpTexts() map[string]helpText {
	return map[string]helpText{
		"run": {
			about: `Plays a lesson's scripted client (lesson 1 unless --lesson N) against a
server and prints the transcript: every line sent, every line the server
wrote on stdout and stderr, and how it ended. With no COMMAND the server is
the lesson's reference server; after -- comes your own, as you would start
it. For a client lesson (lesson 3), the lab plays the servers instead and
COMMAND is your client (the lab's own, lab client, when none is given).
Lesson 1 ends with a model step: one question to a model (AI_URL), or the
lesson's recorded sample when none answers. lab run shows; it does not
judge: lab grade gives the verdict.`,
			exits: []exitDoc{
				{exitOK, "the scenario was played to its end, whatever the server answered"},
				{exitCannot, "bad usage (no such lesson, a scenario file that cannot be read), or the server or " +
					"client did not start: the message says why"},
				bugExit(),
			},
			examples: []example{
				{"lesson 1's client against its reference server, without the model step", "lab run --no-model"},
				{"the same client against your server, with each event's time", "lab run --times -- python3 server.py"},
				{"lesson 3: watch your client talk to both servers", "lab run --lesson 3 -- python3 client.py"},
			},
		},
		"serve": {
			about: `Runs one of the lessons' reference servers, named NAME: in lessons 1 and 2
the server yours must match, in lesson 3 the servers your client talks to.
A stdio server reads one JSON-RPC message a line on stdin,
answers on stdout and logs on stderr, until stdin closes; an HTTP server
listens (on --http host:port, or its own address) until you stop it with
Ctrl-C. Flags may come before or after NAME. Use it as the server of
lab run, lab capture or lab grade, or type messages to it by hand.`,
			more: serverHelp,
			exits: []exitDoc{
				{exitOK, "the server ended normally: its stdin closed, or it was stopped (Ctrl-C, SIGTERM)"},
				{exitCannot, "bad usage (no NAME, no server of that name, --http for a stdio server), " +
					"or the HTTP address could not be listened on"},
				bugExit(),
			},
			examples: []example{
				{"lesson 1's server: type a line such as {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}, then Ctrl-D",
					"lab serve reader"},
				{"lesson 3's ticket system, on Streamable HTTP", "lab serve tickets --http 127.0.0.1:3115"},
			},
		},
		"grade": {
			about: `Grades your program against a lesson's checks (lesson 1 unless --lesson N).
Everything after -- is the command that starts it, as you would type it:
for lessons 1 and 2 a stdio server, for lesson 3 an MCP client, to which the
grader adds --config PATH and whose servers it plays. The grader runs the
lesson's scenarios against the program and prints a report: the score, and
for every failed check what happened, what was expected, the rule it breaks
and how to fix it. The report goes to stdout, or with --out to a new file
(checked before any grading starts, so a bad --out costs nothing).`,
			exits: []exitDoc{
				{exitOK, "every check passed"},
				{exitFailed, "the program was graded and at least one check failed: the report says which, and why"},
				{exitCannot, "bad usage (no COMMAND after --, a bad flag, an --out that cannot be written; " +
					"nothing was graded), or the program could not be graded at all: it did not start (it failed " +
					"to exec, exited with status 126 or 127, or ended before it was ready without answering " +
					"anything); the report says which"},
			},
			examples: []example{
				{"grade lesson 1's reference server (lab on your PATH): every check passes", "lab grade -- lab serve reader"},
				{"grade your lesson-1 server, from its folder", "lab grade -- python3 server.py"},
				{"grade a lesson-2 server and keep a Markdown report", "lab grade --lesson 2 --format markdown --out report.md -- node server.js"},
				{"grade a lesson-3 client", "lab grade --lesson 3 -- python3 client.py"},
			},
		},
		"grade-class": {
			about: `Grades every folder of SUBMISSIONS, one folder per student. A submission
folder holds an executable "run" that starts the student's program on
stdio, and may hold an executable "build", run once first. Both get
LAB_WORK, a writable folder they share. Each program runs in a sandbox
(--sandbox process, or container with a Docker engine), several at a time.

Creates DIR (it must not exist, unless an earlier grade-class made it, and
no other user may write to the folders above it) and writes, in DIR:
  students/STUDENT/FORMAT.EXT
                each student's result in every --format (text.txt,
                json.json, junit.xml, prairielearn.json, gradescope.json,
                exercism.json, github.txt with github-summary.md,
                markdown.md), written as each student's grading ends
  students/STUDENT/record.json
                the student's full result and what it was graded under,
                for --resume-from
  class.json    every result in full, and the lab version, time scale and
                shard (--shard K/N, or --shard-index K-1 --shard-count N
                as a Kubernetes Indexed Job gives it) it was graded
                with: what lab merge-grades joins
  grades.csv    student,score,max_score,status,failed,flags (status graded,
                ungradable, or not-graded when the grading was stopped;
                failed check ids and flags separated by ";"; no score unless
                graded; every cell safe to open in a spreadsheet)
  summary.md    score distribution, checks most often failed, outcomes,
                flagged students
and prints the summary. Flags mark what the teacher should look at: a copy
of the lab binary in the submission, a transcript identical to the
reference server's, a submission that could not be identified, a full
LAB_WORK. Without --time-scale the deadlines are calibrated first, by
grading the reference server in the same sandbox.

SIGINT or SIGTERM stops the grading within seconds; the results so far are
written, marked incomplete. --resume-from EARLIER reuses the results of an
earlier run (stopped or killed) under the deadlines' scale it used,
calibrated or given, for every student whose files are unchanged; a
different --time-scale reuses none. Each student graded again is named on
stderr with the reason. Every usage error (a flag, the submissions folder,
an --out that cannot be made, a --resume-from that is not a results
folder) is found before any grading, and leaves no --out behind.`,
			exits: []exitDoc{
				{exitOK, "the class was graded, whatever the students scored (their scores are in grades.csv)"},
				{exitCannot, "bad usage (found before any grading: no --out is left behind), the class could not be " +
					"graded (no container engine, say), or the grading was stopped: the results so far are in DIR, " +
					"the students not graded marked not-graded; grade them with --resume-from"},
				{exitInternal, "the results could not be written (a full disk, say) or the lab binary could not be read: " +
					"the message says which"},
			},
			examples: []example{
				{"grade the class in submissions/ (submissions/ada/run, submissions/bob/run, ...) against lesson 1",
					"lab grade-class --out results submissions"},
				{"lesson 2, each student's report also as JUnit XML", "lab grade-class --lesson 2 --format json,junit,markdown --out results submissions"},
				{"finish a run that was stopped, reusing what it graded", "lab grade-class --resume-from results --out results2 submissions"},
			},
		},
		"capture": {
			about: `Records a session with a stdio server. Starts COMMAND, sends it the lines
of FILE.jsonl one at a time on stdin (waiting up to --wait for the answer to
each request), closes stdin, and waits for the server to exit. Writes what
went each way, the server's stderr and how it ended to OUT.jsonl (which lab
validate checks) and OUT.md (to read). Both are new files: if either
exists, capture refuses before the server starts.`,
			exits: []exitDoc{
				{exitOK, "recorded: every request was answered within --wait"},
				{exitFailed, "recorded, but some request got no answer within --wait (each is named on stderr, and in OUT.md)"},
				{exitCannot, "bad usage (FILE.jsonl cannot be read, OUT.jsonl or OUT.md already exists), the server " +
					"could not be started, the recording was interrupted, or a file could not be written: " +
					"the message says which"},
				bugExit(),
			},
			examples: []example{
				{"record lesson 2's error cases against its reference server, into /tmp/errors.jsonl and /tmp/errors.md",
					"lab capture /tmp/errors lessons/02-json-rpc-on-the-wire/wire/03-errors.jsonl -- lab serve helpdesk"},
				{"the same against your server, waiting up to 10 s for each answer",
					"lab capture --wait 10s mine lessons/02-json-rpc-on-the-wire/wire/03-errors.jsonl -- python3 server.py"},
			},
		},
		"validate": {
			about: `Checks messages against the official MCP 2026-07-28 JSON Schema (a copy is
built into the lab). Each PATH is a file, or a folder whose files of
messages are all checked (links are not followed). What a file must hold
depends on its name:
  NAME.jsonl          a wire file: one JSON-RPC message a line; every line
                      must meet the schema.
  NAME.invalid.jsonl  a wire file of deliberate mistakes, such as lesson 2's
                      wire/04-mistakes.invalid.jsonl: each line is a message
                      that breaks a rule, and each must FAIL the schema. The
                      file passes when every line fails; a line that meets
                      the schema fails the file ("line N meets ..., but this
                      file holds mistakes"): it teaches no mistake. Keep one
                      mistake a line; each line is checked on its own.
  a .jsonl of lab capture
                      a recorded session: every message the server wrote
                      must meet the schema; the client's mistakes, sent on
                      purpose to record the answer, are noted, not counted.
  NAME.json           in a folder named after a schema definition (as the
                      official examples are kept: CallToolRequest/x.json),
                      an example of that definition; named on the command
                      line elsewhere, one message.
In a folder, other .json files (data such as a lesson's tickets.json) are
left out. Each file gets a line, ok or FAIL, with the reason for each
failing line, and a last line counts the files.`,
			exits: []exitDoc{
				{exitOK, "every file passed"},
				{exitFailed, "at least one file failed (a message against the schema, a line of an .invalid.jsonl " +
					"file that meets it, a file that cannot be read): each is marked FAIL"},
				{exitCannot, "bad usage (no PATH, a PATH that does not exist or is not a file or folder, a folder " +
					"with no file of messages), or the check was interrupted"},
				bugExit(),
			},
			examples: []example{
				{"check lesson 2's wire files, the file of mistakes among them", "lab validate lessons/02-json-rpc-on-the-wire/wire"},
				{"check lesson 2's recorded sessions, printing only the files that fail", "lab validate -q lessons/02-json-rpc-on-the-wire/sessions"},
			},
		},
		"client": {
			about: `Lesson 3's reference MCP client, behind the contract lab grade --lesson 3
holds your client to (lessons/03-wiring-up-mcp/CONTRACT.md). It mounts the
servers of --config, then reads one JSON command a line on stdin,
{"command":"list_tools"} or {"command":"call_tool","name":...,
"arguments":{...}}, and writes exactly one JSON answer a line on stdout,
until stdin closes. Every call is approved: a command is the user's own
request. Its notes, and the servers' stderr with -v, go to stderr.`,
			exits: []exitDoc{
				{exitOK, "stdin closed (or Ctrl-C): every command read was answered"},
				{exitCannot, "bad usage: arguments given (commands come on stdin), or the --config file cannot be " +
					"read or is not a valid configuration (such as an alias given twice)"},
				{exitInternal, "stdin could not be read or an answer could not be written: the message says which"},
			},
			examples: []example{
				{"list the tools of lesson 3's servers (start lab serve tickets in another terminal first)",
					`echo '{"command":"list_tools"}' | lab client --config lessons/03-wiring-up-mcp/servers.json`},
				{"answer the commands in commands.jsonl, one a line, as your client must",
					"lab client --config lessons/03-wiring-up-mcp/servers.json < commands.jsonl"},
			},
		},
		"tools": {
			about: `Mounts the servers of --config and lists every tool, as a model would be
shown them: the namespaced name (mcp__ALIAS__TOOL), the server and the
tool's own name, the approval it needs, and its description. Servers that
cannot be reached, and tools left out (a name already taken), end the list
as NOTICE lines.`,
			exits: []exitDoc{
				{exitOK, "every server was mounted and every tool listed"},
				{exitFailed, "the list was printed, but a server could not be reached or a tool was left out: " +
					"each NOTICE line says why"},
				{exitCannot, "bad usage: arguments given, or the --config file cannot be read or is not a valid configuration"},
			},
			examples: []example{
				{"lesson 3's two servers (start lab serve tickets in another terminal first)",
					"lab tools --config lessons/03-wiring-up-mcp/servers.json"},
			},
		},
		"call": {
			about: `Mounts the servers of --config and calls one tool, NAME as lab tools lists
it, with ARGUMENTS-JSON (a JSON object) as its arguments, and prints the
result. Every remote tool needs approval, whatever it claims: at a
terminal the lab asks; elsewhere, or to skip the question, pass --yes.`,
			exits: []exitDoc{
				{exitOK, "the tool ran and returned a result"},
				{exitFailed, "the call failed: no tool of that name, not approved, the server failed, or the tool " +
					"answered with an error; the text printed says which"},
				{exitCannot, "bad usage: no NAME, arguments that are not a JSON object, or a --config file that " +
					"cannot be read or is not a valid configuration"},
			},
			examples: []example{
				{"search lesson 3's notes library, approving the call",
					`lab call --config lessons/03-wiring-up-mcp/servers.json --yes mcp__notes__search '{"query":"stdout"}'`},
			},
		},
		"merge-grades": {
			about: `Joins the results folders of a class graded in shards (lab grade-class
--shard K/N, one DIR per shard) into OUT: one grades.csv, summary.md,
class.json and students/ tree, the same as one grade-class run over the
whole class would give, and prints the summary. It refuses, with an error
and without writing anything but the new folder, shards of different
lessons, lab versions or time scales, a shard given twice or missing, a
shard that was stopped before it graded everyone, and a student present
in two shards. OUT must not exist (or be an earlier results folder of the
lab's).`,
			exits: []exitDoc{
				{exitOK, "merged: OUT holds the whole class"},
				{exitCannot, "bad usage, or the shards cannot be merged (the message says why) or OUT cannot be made: " +
					"nothing was written"},
				{exitInternal, "OUT was made but could not be written whole (a full disk, say), or the summary could not be printed"},
			},
			examples: []example{
				{"grade a class in two shards (on two machines, say), then join them",
					"lab grade-class --shard 1/2 --time-scale 1.5 --out shard-1 submissions"},
				{"", "lab grade-class --shard 2/2 --time-scale 1.5 --out shard-2 submissions"},
				{"", "lab merge-grades results shard-1 shard-2"},
			},
		},
		"assignment": {
			about: `Writes a student repository into DIR (which must not exist, or be an empty
folder): the lesson's starter in that language, the "run" script the grader
starts (and "build" for Go), README.md for the student (the starter's own
README becomes STARTER.md), and CI files that grade every push with exactly
this lab:
  .github/workflows/grade.yml   GitHub Actions; GitHub Classroom reads its
                                "Points X/Y" line, the job summary gets the
                                Markdown report
  .gitlab-ci.yml                GitLab CI; the JUnit report is the job's
                                test report artifact

Both install the lab with
  go install github.com/mcplab/mcplab/cmd/lab@VERSION
pinned to exactly this lab: its release version, or, for a lab built (go
build or go run) in a clean clone, its commit as a Go pseudo-version
(v0.0.0-YYYYMMDDHHMMSS-<12 hex of the commit>; that commit must be pushed
to the module's repository). "lab version" prints it. A lab built with
local changes, by go test or outside a clone is no lab CI could install:
it says so, names the commit it was built from when it knows it, and
exits 2; --lab-version chooses the version instead.`,
			exits: []exitDoc{
				{exitOK, "written: DIR holds the repository"},
				{exitCannot, "bad usage (no DIR, no --lang, a DIR that is not new), a lab CI could not install " +
					"(see above: pass --lab-version), or the files could not be written"},
			},
			examples: []example{
				{"hand out lesson 1's Python starter, in the folder lesson1", "lab assignment --lesson 1 --lang python lesson1"},
				{"lesson 2 in Go, CI installing the release v1.2.0", "lab assignment --lesson 2 --lang go --lab-version v1.2.0 lesson2"},
			},
		},
		"relay": {
			about: `Started by the grader, not by you. For lesson 3, lab grade plays the
servers your client talks to. The configuration it hands your client
names "lab relay SOCKET" as a stdio server's command: the relay passes
your client's bytes to the server the grader runs, on SOCKET, and its
answers back. In a sandbox, lab relay --bridge ADDR=SOCKET -- COMMAND runs
the client itself in a network where the HTTP server's loopback address
ADDR forwards to the grader, and reports on --report SOCKET what the client
left running. Your client needs only to start the command its
configuration names.`,
			exits: []exitDoc{
				{exitOK, "the session ended: the client closed the relay's stdin"},
				{exitCannot, "bad usage, a SOCKET of the grader's that could not be reached (the grader is gone), " +
					"or with --bridge a COMMAND that could not be started"},
				{exitOther, "with --bridge: the client's own exit status N, or 128 + the number of the signal that ended it"},
			},
			examples: []example{
				{"what a client's configuration names (the grader writes SOCKET, a path of its own)",
					"lab relay /tmp/lab-rig-1234/notes.sock"},
			},
		},
		"version": {
			about: `Prints the lab's version: a release such as v1.2.3, or for a lab built
(go build or go run) in a clean clone, its commit as a Go pseudo-version:
what lab assignment pins in CI. A lab built with local changes prints
"dev" and the commit it was built from.`,
			exits: []exitDoc{
				{exitOK, "printed"},
				{exitCannot, "bad usage: version takes no arguments"},
			},
			examples: []example{{"print this lab's version", "lab version"}},
		},
	}
}

// serverHelp lists the reference servers lab serve runs, with what each
// is and the lesson that uses it.
func serverHelp() string {
	var b strings.Builder
	b.WriteString("Servers:\n")
	for _, s := range servers.All() {
		what := s.Summary
		if m := lessonServing(s.Name); m != nil {
			what += fmt.Sprintf(" (lesson %d)", m.Number)
		}
		fmt.Fprintf(&b, "  %-10s %s\n", s.Name, wrap(what, 78-13, strings.Repeat(" ", 13)))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// printHelp writes the help of the command name: its synopsis, what it
// does, its flags, its exit codes and examples.
func printHelp(w io.Writer, name, synopsis string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: lab %s\n", synopsis)
	h, _ := helpFor(name)
	if h.about != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(h.about))
	}
	if h.more != nil {
		fmt.Fprintf(w, "\n%s\n", h.more())
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintf(w, "\nFlags:\n")
		printFlags(w, fs)
	}
	if len(h.exits) > 0 {
		fmt.Fprintf(w, "\nExit codes:\n")
		for _, x := range h.exits {
			code := fmt.Sprint(x.code)
			if x.code == exitOther {
				code = "N"
			}
			fmt.Fprintf(w, "  %-2s %s\n", code, wrap(x.means, 78-5, "     "))
		}
	}
	if len(h.examples) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, x := range h.examples {
			if x.says != "" {
				fmt.Fprintf(w, "  # %s\n", wrap(x.says, 78-4, "  # "))
			}
			fmt.Fprintf(w, "  %s\n", x.line)
		}
	}
}

// printFlags lists the flags of fs as flag.PrintDefaults does, "-name
// type" and then what it is for, with the text wrapped to fit a terminal.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	const indent = "      "
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if typ != "" {
			head += " " + typ
		}
		if !isZeroValue(f) {
			if typ == "string" {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "%s\n%s%s\n", head, indent, wrap(usage, 78-len(indent), indent))
	})
}

// isZeroValue reports whether the flag's default is its type's zero value
// (which the help does not show), as the flag package decides it.
func isZeroValue(f *flag.Flag) (zero bool) {
	defer func() {
		if recover() != nil {
			zero = f.DefValue == ""
		}
	}()
	t := reflect.TypeOf(f.Value)
	var z reflect.Value
	if t.Kind() == reflect.Pointer {
		z = reflect.New(t.Elem())
	} else {
		z = reflect.Zero(t)
	}
	v, ok := z.Interface().(flag.Value)
	if !ok {
		return f.DefValue == ""
	}
	return f.DefValue == v.String()
}

// wrap breaks text into lines of at most width characters at spaces; the
// lines after the first start with indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+len(word) > width:
			b.WriteString("\n" + indent)
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
