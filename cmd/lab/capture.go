package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/client"
)

// maxCaptureInput bounds the file of lines lab capture sends.
const maxCaptureInput = 16 << 20

func captureCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("capture", "capture [flags] OUT FILE.jsonl -- COMMAND [ARGS...]", e.stderr)
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
		return exitCannot, err
	}
	positional := fs.Args()
	if len(positional) != 2 || len(rest) < 2 {
		return exitCannot, usagef("usage: lab capture OUT FILE.jsonl -- COMMAND [ARGS...] (writes OUT.jsonl and OUT.md)")
	}
	out, inputPath, command := positional[0], positional[1], rest[1:]
	out = strings.TrimSuffix(strings.TrimSuffix(out, ".jsonl"), ".md")
	input, err := readBounded(inputPath, maxCaptureInput)
	if err != nil {
		return exitCannot, usageError{err.Error()}
	}
	s, err := capture.Run(ctx, client.Command{Path: command[0], Args: command[1:]}, input, capture.Options{Wait: *wait})
	if err != nil {
		return exitCannot, err
	}
	s.Command, s.Input = command, filepath.ToSlash(inputPath)
	if *title == "" {
		*title = "Session " + filepath.Base(out)
	}
	var jsonl, md bytes.Buffer
	if err := s.WriteJSONL(&jsonl); err != nil {
		return exitInternal, err
	}
	if err := s.WriteMarkdown(&md, *title); err != nil {
		return exitInternal, err
	}
	for name, b := range map[string][]byte{out + ".jsonl": jsonl.Bytes(), out + ".md": md.Bytes()} {
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return exitCannot, fmt.Errorf("writing the session: %w", err)
		}
	}
	fmt.Fprintf(e.stderr, "lab capture: %d records in %s.jsonl and %s.md; the server %s\n", len(s.Records), out, out, s.Exit)
	if len(s.Missing) > 0 {
		for _, m := range s.Missing {
			fmt.Fprintf(e.stderr, "lab capture: %s\n", m)
		}
		return exitFailed, nil
	}
	return exitOK, nil
}
