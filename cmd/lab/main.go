// Command lab is mcplab: a teaching lab for JSON-RPC and MCP on the wire.
//
//	lab run        play a lesson's scripted client against a server
//	lab serve      run a reference server on stdio
//	lab grade      grade any stdio server
//	lab grade-class grade a whole class of submissions
//	lab client     lesson 3's reference MCP client (JSON lines on stdin/stdout)
//	lab tools      list the tools of the configured MCP servers
//	lab call       call one tool of the configured MCP servers
//	lab capture    record a session with a stdio server
//	lab validate   check messages against the MCP 2026-07-28 schema
//	lab merge-grades join the results of a class graded in shards
//	lab assignment write a student repository with CI that grades each push
//	lab relay      join a client or server under test to the grader (internal)
//	lab version    print the version
//
// Run "lab help COMMAND" for what each does, its flags, exit codes and
// examples (the texts are in help/COMMAND.txt).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcplab/mcplab/lab/rig"
)

// version is stamped at build time with -ldflags "-X main.version=...";
// without a stamp, thisBuild (version.go) names the lab from its build
// information: the module version go install recorded, or the commit.
var version = "dev"

// Exit statuses shared by every command.
const (
	exitOK       = 0
	exitFailed   = 1 // a grade with a failed check
	exitCannot   = 2 // bad usage, or could not grade
	exitInternal = 3
)

// usageError marks an error that is the user's command line, not the lab.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// env is what a command may touch of the world, so tests can run commands
// in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// isTerminal reports whether stdout is a terminal (for colour).
	isTerminal bool
	// wholeProcess is set when the command is the whole lab process (not a
	// test calling dispatch): only then may it change what holds for the
	// process, such as becoming the subreaper of its servers' orphans.
	wholeProcess bool
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) (int, error)
}

func commands() []command {
	return []command{
		{"run", "play a lesson's client against a server, print the transcript", runCmd},
		{"serve", "run a lesson's reference server: lab serve reader, helpdesk, ...", serveCmd},
		{"grade", "grade your server or client: lab grade -- COMMAND [ARGS...]", gradeCmd},
		{"grade-class", "grade a class: every submission folder, one per student", gradeClassCmd},
		{"capture", "send a server a file's lines, record both ways in OUT.jsonl", captureCmd},
		{"validate", "check wire files and sessions against the MCP 2026-07-28 schema", validateCmd},
		{"client", "lesson 3's reference MCP client: JSON commands on stdin", clientCmd},
		{"tools", "list the tools of servers.json's servers, as a model sees them", toolsCmd},
		{"call", "call one tool of the servers in servers.json", callCmd},
		{"merge-grades", "join the results of a class graded in shards (--shard K/N)", mergeGradesCmd},
		{"assignment", "write a student repository: starter, run script, CI that grades", assignmentCmd},
		{"relay", "join a client or server under test to the grader (internal)", relayCmd},
		{"version", "print the lab's version", versionCmd},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, isTerminal: isTerminal(os.Stdout), wholeProcess: true}
	var code int
	if rig.RelayOnly() {
		code = relayOnly(ctx, e, os.Args[1:])
	} else {
		code = dispatch(ctx, e, os.Args[1:])
	}
	stop()
	os.Exit(code)
}

func dispatch(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitCannot
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		return help(ctx, e, args[1:])
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		code, err := c.run(ctx, e, args[1:])
		if err != nil {
			var ue usageError
			switch {
			case errors.As(err, &ue):
				fmt.Fprintf(e.stderr, "lab %s: %v\nRun \"lab help %s\" for usage.\n", c.name, err, c.name)
				return exitCannot
			case errors.Is(err, errHelp):
				return exitOK
			default:
				fmt.Fprintf(e.stderr, "lab %s: %v\n", c.name, err)
				if code == exitOK {
					code = exitInternal
				}
			}
		}
		return code
	}
	fmt.Fprintf(e.stderr, "lab: unknown command %q\n\n", args[0])
	printUsage(e.stderr)
	return exitCannot
}

// help is "lab help [COMMAND]": the list of commands, or one command's
// help (the same as "lab COMMAND -h"). Asked for, help goes to stdout, so
// that it can be paged (lab help grade | less); "lab COMMAND -h" writes it
// to stderr, as every usage, since stdout may be a protocol stream.
func help(ctx context.Context, e *env, args []string) int {
	out := *e
	out.stderr = e.stdout
	switch {
	case len(args) == 0 || (len(args) == 1 && args[0] == "help"):
		printUsage(e.stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(e.stderr, "lab help: name one command, for example: lab help grade (%d were given)\n", len(args))
		return exitCannot
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return dispatch(ctx, &out, []string{c.name, "-h"})
		}
	}
	fmt.Fprintf(e.stderr, "lab help: unknown command %q\n\n", args[0])
	printUsage(e.stderr)
	return exitCannot
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "lab %s: a teaching lab for JSON-RPC and MCP on the wire\n\nUsage: lab COMMAND [flags]\n\nCommands:\n", thisBuild().Shown)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun \"lab help COMMAND\" to see what a command does, its flags,\n"+
		"its exit codes and examples.\n")
}

func versionCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags("version", "version", e.stderr)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) > 0 {
		return exitCannot, usagef("version takes no arguments")
	}
	fmt.Fprintf(e.stdout, "lab %s\n", thisBuild().Shown)
	return exitOK, nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
