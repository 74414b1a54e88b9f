package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/textesc"
)

// maxCaptureInput bounds the file of lines lab capture sends.
const maxCaptureInput = 16 << 20

// readDeadline bounds the time lab capture and lab validate spend reading
// one file.
const readDeadline = 30 * time.Second

// readFile reads the regular file at path, at most limit bytes, within
// readDeadline (see capture.ReadRegular).
func readFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, readDeadline)
	defer cancel()
	return capture.ReadRegular(ctx, path, limit)
}

// orphanWait bounds the time spent ending the processes a server left
// running, once the lab is done with it.
const orphanWait = 10 * time.Second

func captureCmd(ctx context.Context, e *env, args []string) (int, error) {
	stderr := textesc.Writer(e.stderr)
	fs := newFlags("capture", "capture [flags] OUT FILE.jsonl -- COMMAND [ARGS...]", stderr)
	wait := fs.Duration("wait", 5*time.Second, "how long to wait for each answer, and for the server to exit")
	title := fs.String("title", "", "the title of OUT.md (default: OUT's name)")
	var rest []string
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i:]
			break
		}
	}
	if _, err := parseFlags(fs, args); err != nil {
		return exitCannot, escaped(err)
	}
	positional := fs.Args()
	if len(positional) != 2 || len(rest) < 2 {
		return exitCannot, usagef("usage: lab capture OUT FILE.jsonl -- COMMAND [ARGS...] (writes OUT.jsonl and OUT.md)")
	}
	if *wait <= 0 {
		return exitCannot, usagef("-wait must be more than 0")
	}
	out, inputPath, command := positional[0], positional[1], rest[1:]
	out = strings.TrimSuffix(strings.TrimSuffix(out, ".jsonl"), ".md")
	input, err := readFile(ctx, inputPath, maxCaptureInput)
	if err != nil {
		return exitCannot, escaped(usageError{err.Error()})
	}
	names := []string{out + ".jsonl", out + ".md"}
	for _, name := range names {
		if err := capture.CheckNew(name); err != nil {
			return exitCannot, escaped(usageError{err.Error()})
		}
	}
	s, err := recordSession(ctx, e, stderr, proc.Command{Path: command[0], Args: command[1:], EndGroup: true}, input, *wait)
	if err != nil {
		return exitCannot, escaped(err)
	}
	s.Command, s.Input = command, filepath.ToSlash(inputPath)
	if *title == "" {
		*title = "Session " + filepath.Base(out)
	}
	var jsonl, md bytes.Buffer
	if err := s.WriteJSONL(&jsonl); err != nil {
		return exitInternal, escaped(err)
	}
	if err := s.WriteMarkdown(&md, *title); err != nil {
		return exitInternal, escaped(err)
	}
	for i, b := range [][]byte{jsonl.Bytes(), md.Bytes()} {
		if err := capture.WriteNew(names[i], b); err != nil {
			return exitCannot, escaped(err)
		}
	}
	fmt.Fprintf(stderr, "lab capture: %d records in %s and %s; the server %s\n",
		len(s.Records), textesc.Line(names[0]), textesc.Line(names[1]), textesc.Line(s.Exit.String()))
	if len(s.Missing) > 0 {
		for _, m := range s.Missing {
			fmt.Fprintf(stderr, "lab capture: %s\n", textesc.Line(m))
		}
		return exitFailed, nil
	}
	return exitOK, nil
}

// recordSession runs the recording. When the command is the whole lab
// process, the lab adopts what the server leaves behind (Linux) and ends
// it afterwards, so a daemon the server started outside its process group
// does not outlive the capture. An interrupted recording (SIGINT,
// SIGTERM) is an error: the server has been ended and nothing is written.
func recordSession(ctx context.Context, e *env, stderr io.Writer, starter proc.Starter, input []byte, wait time.Duration) (*capture.Session, error) {
	stop := adoptOrphans(e, stderr, "lab capture")
	s, err := capture.Run(ctx, starter, input, capture.Options{Wait: wait})
	stop()
	if err != nil && ctx.Err() != nil {
		return nil, errors.New("interrupted: the server was ended and nothing was written")
	}
	return s, err
}

// adoptOrphans makes the lab the subreaper of what its servers leave
// running, when the command is the whole lab process, and returns the
// function that ends those processes (to call once the servers are done).
// Where that is not possible (not Linux), only each server's process
// group is ended, and a daemon that left it is not reached.
func adoptOrphans(e *env, stderr io.Writer, who string) func() {
	if !e.wholeProcess {
		return func() {}
	}
	o, err := proc.AdoptOrphans()
	if err != nil {
		return func() {}
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), orphanWait)
		defer cancel()
		n, err := o.KillAll(ctx)
		if n > 0 {
			fmt.Fprintf(stderr, "%s: ended %s the server had left running outside its process group "+
				"(a daemon started with setsid, or its children); a server must end what it starts\n", who, textesc.CountOf(n, "process", "processes"))
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", who, textesc.Line(err.Error()))
		}
		_ = o.Close()
	}
}

// escaped returns err with its control characters shown as escapes (the
// lab's dispatch prints errors as they are), keeping a usage error one.
func escaped(err error) error {
	var ue usageError
	if errors.As(err, &ue) {
		return usageError{textesc.Line(err.Error())}
	}
	if errors.Is(err, errHelp) {
		return err
	}
	return errors.New(textesc.Line(err.Error()))
}
