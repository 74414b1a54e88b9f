package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/lab/textesc"
)

// sandboxExecArg is the hidden first argument of grade-class that makes the
// lab binary the process sandbox's launcher: the sandbox runs every student
// program as "lab grade-class sandbox-exec FLAGS -- PROGRAM ARGS...".
const sandboxExecArg = "sandbox-exec"

// gradeClassUsage is the synopsis of lab grade-class; help/grade-class.txt says the rest.
const gradeClassUsage = "grade-class --out DIR [flags] SUBMISSIONS"

// gradeClassCmd is lab grade-class: it reads the command line into a
// classConfig, checks it, then finds the lesson and the submissions,
// settles what the grading depends on, opens the sandbox and grades.
func gradeClassCmd(ctx context.Context, e *env, args []string) (int, error) {
	if len(args) > 0 && args[0] == sandboxExecArg {
		return sandbox.Main(args[1:]), nil
	}
	fs := newFlags("grade-class", gradeClassUsage, e.stderr)
	cfg := classFlags(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if err := cfg.validate(rest); err != nil {
		return exitCannot, err
	}
	r := &classRun{cfg: cfg, e: e}
	if err := r.find(); err != nil {
		return exitCannot, err
	}
	if code, err := r.settle(); err != nil {
		return code, err
	}
	sb, err := r.openSandbox(ctx)
	if err != nil {
		return exitCannot, err
	}
	defer sb.Close()
	return r.grade(ctx, sb)
}

// someNames lists the first names of names, safe to print on one line,
// and how many more there are.
func someNames(names []string, most int) string {
	var shown []string
	for i, n := range names {
		if i == most {
			shown = append(shown, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		shown = append(shown, textesc.Line(n))
	}
	return strings.Join(shown, ", ")
}

// needsGo reports whether a submission has a build step (which may well
// compile Go) while a go command is there to warm a cache with.
func needsGo(subs []class.Folder) bool {
	for _, s := range subs {
		if _, err := os.Stat(filepath.Join(s.Dir, "build")); err == nil {
			return true
		}
	}
	return false
}

// warmGoSeed makes sure this machine's seed Go build cache exists and
// returns its folder, or "" (with a note) when there is none to be had.
func warmGoSeed(ctx context.Context, w io.Writer) string {
	dir, err := sandbox.GoSeedDir()
	if err != nil {
		return "" // no Go here: builds that need it will say so
	}
	if _, err := os.Stat(dir); err != nil {
		fmt.Fprintf(w, "lab grade-class: compiling the Go standard library once for sandboxed builds, into %s\n", dir)
	}
	if err := sandbox.WarmGoCache(ctx, dir); err != nil {
		fmt.Fprintf(w, "lab grade-class: note: Go builds start with an empty cache: %v\n", err)
		return ""
	}
	return dir
}

// emptyShard finishes a shard that holds none of the class's students: its
// record, gradebook and summary say so, for lab merge-grades to count it.
func emptyShard(e *env, results *class.Out, opts class.Options, sandboxName string, ignored []string) (int, error) {
	c, err := class.Empty(opts, sandboxName, ignored)
	if err != nil {
		return exitCannot, err
	}
	if err := c.WriteGradebook(results); err != nil {
		return exitInternal, err
	}
	if err := results.WriteRecord(c, version, opts.Shard); err != nil {
		return exitInternal, err
	}
	fmt.Fprintf(e.stderr, "lab grade-class: shard %s holds none of the class's students; its empty results are in %s, for lab merge-grades\n", opts.Shard, results.Path)
	return exitOK, nil
}

// gradedWith is what a result depends on besides the submission: the lab
// (its version and the SHA-256 of its binary) and the grading's settings.
func gradedWith(exe string, lesson int, scale float64, sweep int, seed int64) (class.GradedWith, error) {
	f, err := os.Open(exe)
	if err != nil {
		return class.GradedWith{}, fmt.Errorf("reading the lab binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return class.GradedWith{}, fmt.Errorf("reading the lab binary: %w", err)
	}
	return class.GradedWith{LabVersion: version, LabHash: hex.EncodeToString(h.Sum(nil)), Lesson: lesson, TimeScale: scale, Sweep: sweep, Cuts: seed}, nil
}
