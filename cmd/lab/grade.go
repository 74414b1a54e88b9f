package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/lab/capture"
	"github.com/mcplab/mcplab/lab/event"
)

func gradeCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("grade", "grade [flags] -- COMMAND [ARGS...]", e.stderr)
	lesson := fs.Int("lesson", 1, "the lesson to grade against")
	format := fs.String("format", "text", "output format: "+strings.Join(report.Formats(), ", "))
	out := fs.String("out", "", "write the report to this file instead of stdout")
	sweep := fs.Int("sweep", 0, "replay the lesson's messages this many more times, cut at random places")
	seed := fs.Int64("cuts", 0, "which random cuts the sweep makes: the same number cuts the input the same way again (0: pick one and print it)")
	scale := fs.Float64("time-scale", 1, "multiply every deadline by this (for slow machines)")
	lessonDir := fs.String("lesson-dir", "", "read the grading scenarios from this lesson folder instead of the built-in ones")
	verbose := fs.Bool("v", false, "print every event to stderr as it happens")
	command, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(command) == 0 {
		return exitCannot, usagef("name the server to grade after --, for example: lab grade -- python3 server.py")
	}
	if err := checkFormat(*format); err != nil {
		return exitCannot, err
	}
	if *scale <= 0 {
		return exitCannot, usagef("-time-scale must be more than 0")
	}
	if *sweep < 0 {
		return exitCannot, usagef("-sweep must not be negative")
	}
	if *out != "" {
		// Found before any grading: a report that cannot be written (no
		// such folder, a link, a folder others may write to) must not
		// cost the student the whole run first.
		if err := capture.CheckNew(*out); err != nil {
			return exitCannot, fmt.Errorf("-out: %w (nothing was graded)", err)
		}
	}
	if *sweep > 0 && *seed == 0 {
		*seed = randomSeed()
		fmt.Fprintf(e.stderr, "lab grade: sweep cuts %d (pass --cuts %d to cut the input the same way again)\n", *seed, *seed)
	}
	opts := grading.Options{
		Lesson:    *lesson,
		Student:   proc.Command{Path: command[0], Args: command[1:], EndGroup: true},
		TimeScale: *scale,
		Sweep:     *sweep,
		Cuts:      *seed,
	}
	if *lessonDir != "" {
		opts.LessonDir = dirFS(*lessonDir)
	}
	if *verbose {
		opts.OnEvent = func(sc string, ev event.Record) { fmt.Fprintf(e.stderr, "[%s] %s\n", sc, ev.Line(true)) }
	}
	// No sandbox here: each run's process group is ended when the server
	// ends (EndGroup), and on Linux the lab adopts the daemons that left
	// the group and ends them once grading is done.
	// On a terminal, stderr shows the scenario that runs and how long its
	// deadlines may still make it wait (not with -v, whose events say it);
	// it is cleared before the report. Off a terminal nothing is shown.
	var prog *grading.TermProgress
	if to, ok := grading.TermFor(e.stderr, e.getenv, "lab grade"); ok && !*verbose {
		prog = grading.NewTermProgress(e.stderr, to)
		opts.Progress = prog
	}
	endOrphans := adoptOrphans(e, e.stderr, "lab grade")
	res, err := kinds.Grade(ctx, opts)
	if prog != nil {
		prog.Close()
	}
	endOrphans()
	if err != nil {
		return exitCannot, err
	}
	if err := writeReport(e, *format, *out, res); err != nil {
		return exitCannot, err
	}
	return gradeExit(res), nil
}

// gradeExit is the exit status of a grade: 0 all passed, 1 some check
// failed, 2 could not grade.
func gradeExit(res *grading.Result) int {
	switch {
	case !res.Gradable:
		return exitCannot
	case len(res.Failed()) > 0:
		return exitFailed
	}
	return exitOK
}

// checkFormat is the usage error of a report format lab grade and lab
// grade-class do not know, or nil for one they do.
func checkFormat(f string) error {
	if slices.Contains(report.Formats(), f) {
		return nil
	}
	return usagef("unknown format %q; the formats are %s", f, strings.Join(report.Formats(), ", "))
}

// writeReport writes one report to the file path, or to stdout when path
// is empty. The github format's job summary goes to $GITHUB_STEP_SUMMARY.
func writeReport(e *env, format, path string, res *grading.Result) error {
	opt := report.Options{Color: format == "text" && path == "" && e.isTerminal && e.getenv("NO_COLOR") == ""}
	if format == "github" {
		if p := e.getenv("GITHUB_STEP_SUMMARY"); p != "" {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return fmt.Errorf("opening the job summary: %w", err)
			}
			defer f.Close()
			opt.Summary = f
		}
	}
	if path == "" {
		return report.Write(e.stdout, format, res, opt)
	}
	// The report is bounded (see grading's caps), so it is built in memory
	// and written as a new file renamed into place, never through a link.
	var buf bytes.Buffer
	if err := report.Write(&buf, format, res, opt); err != nil {
		return err
	}
	if err := capture.WriteNew(path, buf.Bytes()); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

func randomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1)
}
