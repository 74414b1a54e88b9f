package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/schema"
	"github.com/mcplab/mcplab/lab/textesc"

	"github.com/mcplab/mcplab/grading"
)

// maxValidateFile bounds the size of a file lab validate reads.
const maxValidateFile = 64 << 20

// validateCmd checks wire files and sessions. It reads only regular files
// (a FIFO or a device named, or linked to, is refused at once), each at
// most maxValidateFile bytes, stops when ctx ends (SIGINT, SIGTERM), and
// shows control characters in what it prints (file names, the lines'
// errors) as escapes.
func validateCmd(ctx context.Context, e *env, args []string) (int, error) {
	stdout := textesc.Writer(e.stdout)
	fs := newFlags("validate", "validate [flags] PATH...", textesc.Writer(e.stderr))
	quiet := fs.Bool("q", false, "print only the files that fail")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, escaped(err)
	}
	if len(paths) == 0 {
		return exitCannot, usagef("name the wire files, recorded sessions or folders to check")
	}
	v, err := schema.Default()
	if err != nil {
		return exitInternal, err
	}
	files, err := validateTargets(v, paths)
	if err != nil {
		return exitCannot, escaped(err)
	}
	failed := 0
	for _, f := range files {
		if ctx.Err() != nil {
			return exitCannot, errors.New("interrupted before every file was checked")
		}
		data, err := readFile(ctx, f, maxValidateFile)
		var r *schema.FileReport
		if err != nil {
			r = &schema.FileReport{Path: f, Err: err}
		} else {
			r = v.CheckFile(f, data)
		}
		if !r.OK() {
			failed++
		}
		if r.OK() && *quiet {
			continue
		}
		printFileReport(stdout, r)
	}
	fmt.Fprintf(stdout, "%s checked against the MCP %s schema, %d failed\n", grading.CountOf(len(files), "file", "files"), "2026-07-28", failed)
	if failed > 0 {
		return exitFailed, nil
	}
	return exitOK, nil
}

// validateTargets expands folders to the files under them that hold
// messages, in a stable order. It does not follow links out of a folder.
func validateTargets(v *schema.Validator, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usagef("%v", err)
		}
		if !st.IsDir() && !st.Mode().IsRegular() {
			return nil, usagef("%s is %s, not a regular file or a folder: name the files of messages saved on disk", p, capture.KindOf(st.Mode()))
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && wantedInFolder(v, path) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", p, err)
		}
		if len(found) == 0 {
			return nil, usagef("%s holds no .jsonl file, nor .json examples in folders named after a schema definition", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// wantedInFolder says whether a file found in a folder holds messages: every
// .jsonl file does; a .json file only in a folder named after a schema
// definition, as the official examples are kept, so that data files (a
// lesson's tickets.json) are not taken for messages. A .json file named on
// the command line is always checked.
func wantedInFolder(v *schema.Validator, path string) bool {
	switch {
	case strings.HasSuffix(path, ".jsonl"):
		return true
	case strings.HasSuffix(path, ".json"):
		return v.HasDef(filepath.Base(filepath.Dir(path)))
	}
	return false
}

func printFileReport(w io.Writer, r *schema.FileReport) {
	status := "ok  "
	if !r.OK() {
		status = "FAIL"
	}
	if r.Err != nil {
		fmt.Fprintf(w, "%s  %s: %s\n", status, textesc.Line(r.Path), textesc.Line(r.Err.Error()))
		return
	}
	fmt.Fprintf(w, "%s  %s (%s, %s)\n", status, textesc.Line(r.Path), r.Kind, grading.CountOf(len(r.Lines), "message", "messages"))
	for _, l := range r.Lines {
		who := ""
		if l.From != "" {
			who = " from the " + string(l.From)
		}
		switch {
		case l.Kind() == "must fail" && l.Err != nil:
			fmt.Fprintf(w, "      line %d fails, as it should: %s\n", l.Line, textesc.Line(l.Err.Error()))
		case l.Kind() == "must fail":
			fmt.Fprintf(w, "      line %d meets %s, but this file holds mistakes: each line must fail\n", l.Line, textesc.Line(strings.TrimPrefix(l.Def, "must fail: ")))
		case l.Err != nil && l.Note != "":
			fmt.Fprintf(w, "      line %d%s %s (%s)\n", l.Line, who, textesc.Line(lineVerdict(l.Err.Error())), textesc.Line(l.Note))
		case l.Err != nil:
			fmt.Fprintf(w, "      line %d%s %s\n", l.Line, who, textesc.Line(lineVerdict(l.Err.Error())))
		}
	}
}
