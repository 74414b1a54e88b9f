package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/report"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lab/textesc"
	"github.com/mcplab/mcplab/lessons"
)

// sandboxExecArg is the hidden first argument of grade-class that makes the
// lab binary the process sandbox's launcher: the sandbox runs every student
// program as "lab grade-class sandbox-exec FLAGS -- PROGRAM ARGS...".
const sandboxExecArg = "sandbox-exec"

// gradeClassUsage is the synopsis of lab grade-class; helptext.go says the rest.
const gradeClassUsage = "grade-class --out DIR [flags] SUBMISSIONS"

func gradeClassCmd(ctx context.Context, e *env, args []string) (int, error) {
	if len(args) > 0 && args[0] == sandboxExecArg {
		return sandbox.Main(args[1:]), nil
	}
	fs := newFlags("grade-class", gradeClassUsage, e.stderr)
	lesson := fs.Int("lesson", 1, "the lesson to grade against")
	out := fs.String("out", "", "folder to write the results to (required)")
	jobs := fs.Int("jobs", 0, "how many submissions to grade at once (0: 8 per core with the process sandbox, 2 per core with containers)")
	sbName := fs.String("sandbox", "process", "where servers run: process or container")
	formats := fs.String("format", "json,markdown,html", "comma-separated report formats for each student: "+strings.Join(report.Formats(), ", "))
	sweep := fs.Int("sweep", 0, "replay the lesson's messages this many more times, cut at random places")
	seed := fs.Int64("cuts", 0, "which random cuts the sweep makes: the same number cuts the input the same way again (0: pick one and print it)")
	scale := fs.Float64("time-scale", 0, "multiply every deadline by this (0: calibrate against the reference server)")
	lessonDir := fs.String("lesson-dir", "", "read the grading scenarios from this lesson folder instead of the built-in ones")
	root := fs.String("root", "", "container sandbox: mount this folder read-only (it must hold SUBMISSIONS) instead of each submission's own folder, for run scripts that use files beside their folder")
	image := fs.String("image", sandbox.DefaultImage, "container sandbox: the image servers run in")
	buildTimeout := fs.Duration("build-timeout", 3*time.Minute, "time limit of a submission's build step (before the time scale)")
	resumeFrom := fs.String("resume-from", "", "reuse the results in this earlier results folder (a run stopped half-way, even killed) whose submission files, lab and time scale match, under the time scale that run used (a different -time-scale reuses none); needs a new -out")
	shardFlag := fs.String("shard", "", "grade only shard K/N of the class (a stable slice by a hash of each student's folder name; needs -time-scale); join the shards with lab merge-grades")
	shardIndex := fs.String("shard-index", "", "grade only the shard of this 0-based index (0 to -shard-count minus 1): the same as -shard K/N with K = index+1, for a Kubernetes Indexed Job's $(JOB_COMPLETION_INDEX); needs -shard-count")
	shardCount := fs.Int("shard-count", 0, "with -shard-index: how many shards the class is graded in")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if err := classGradingSupported(); err != nil {
		return exitCannot, err
	}
	if len(rest) != 1 {
		return exitCannot, usagef("name one folder of submissions, for example: lab grade-class --out results submissions")
	}
	subsDir := rest[0]
	if *out == "" {
		return exitCannot, usagef("-out is required: the folder to write the results to")
	}
	var formatList []string
	for _, f := range strings.Split(*formats, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !validFormat(f) {
			return exitCannot, usagef("unknown format %q; the formats are %s", f, strings.Join(report.Formats(), ", "))
		}
		formatList = append(formatList, f)
	}
	switch {
	case len(formatList) == 0:
		return exitCannot, usagef("-format names no format; give one or more of %s, separated by commas", strings.Join(report.Formats(), ", "))
	case *jobs < 0:
		return exitCannot, usagef("-jobs must not be negative")
	case *scale < 0:
		return exitCannot, usagef("-time-scale must not be negative (0 calibrates)")
	case *sweep < 0:
		return exitCannot, usagef("-sweep must not be negative")
	case *buildTimeout <= 0:
		return exitCannot, usagef("-build-timeout must be more than 0")
	case *sbName != "process" && *sbName != "container":
		return exitCannot, usagef("unknown sandbox %q; the sandboxes are process and container", *sbName)
	}
	var shard class.Shard
	switch {
	case *shardFlag != "" && (*shardIndex != "" || *shardCount != 0):
		return exitCannot, usagef("give either -shard K/N or -shard-index and -shard-count, not both")
	case (*shardIndex != "") != (*shardCount != 0):
		return exitCannot, usagef("-shard-index and -shard-count go together: the 0-based index of a shard, and how many shards there are")
	}
	if *shardFlag != "" || *shardIndex != "" {
		if *shardFlag != "" {
			shard, err = class.ParseShard(*shardFlag)
		} else {
			shard, err = class.ShardFromIndex(*shardIndex, *shardCount)
		}
		if err != nil {
			return exitCannot, usageError{err.Error()}
		}
		if *scale == 0 && *resumeFrom == "" {
			return exitCannot, usagef("-shard needs -time-scale: shards calibrated apart would get different deadlines, and lab merge-grades refuses to merge them")
		}
	}
	var lessonFS iofs.FS
	if *lessonDir != "" {
		lessonFS = os.DirFS(*lessonDir)
	}
	manifest, err := lessons.Find(*lesson, lessonFS)
	if err != nil {
		return exitCannot, usageError{err.Error()}
	}
	if _, err := kinds.LoadLesson(*lesson, lessonFS); err != nil {
		return exitCannot, usagef("-lesson %d: %v", *lesson, err)
	}
	if info, err := os.Stat(subsDir); err != nil || !info.IsDir() {
		return exitCannot, usagef("%s is not a folder of submissions", subsDir)
	}
	exclude := []string{*out}
	subs, ignored, err := class.List(subsDir, exclude)
	if err != nil {
		return exitCannot, usageError{err.Error()}
	}
	if len(subs) == 0 {
		return exitCannot, usagef("%s holds no submission folders: give the folder that holds one folder per student", subsDir)
	}
	var rootAbs string
	if *root != "" {
		if rootAbs, err = filepath.Abs(*root); err != nil {
			return exitCannot, usagef("-root: %v", err)
		}
		if info, err := os.Stat(rootAbs); err != nil || !info.IsDir() {
			return exitCannot, usagef("-root %s is not a folder", *root)
		}
		for _, s := range subs {
			if d, err := filepath.Abs(s.Dir); err != nil || !inside(rootAbs, d) {
				return exitCannot, usagef("-root %s does not hold the submission %s: the mounted folder must hold every submission", *root, s.Dir)
			}
		}
	}
	if err := checkClassOut(*out); err != nil {
		return exitCannot, err
	}
	exe, err := os.Executable()
	if err != nil {
		return exitInternal, fmt.Errorf("finding the lab binary: %w", err)
	}
	with, err := gradedWith(exe, *lesson, *scale, *sweep, *seed)
	if err != nil {
		return exitInternal, err
	}
	var earlier *class.Earlier
	if *resumeFrom != "" {
		a, err1 := filepath.Abs(*resumeFrom)
		b, err2 := filepath.Abs(*out)
		if err1 != nil || err2 != nil || a == b {
			return exitCannot, usagef("-out must be a new folder, not the -resume-from one: the earlier results are kept until the new run is done")
		}
		if earlier, err = class.LoadEarlier(*resumeFrom, with); err != nil {
			return exitCannot, usageError{"-resume-from: " + err.Error()}
		}
		resumeNote(e.stderr, earlier, *scale)
		if *scale == 0 {
			*scale = earlier.TimeScale
			with.TimeScale = *scale
		}
	}
	if (*shardFlag != "" || *shardIndex != "") && *scale == 0 {
		return exitCannot, usagef("-shard needs -time-scale: shards calibrated apart would get different deadlines, and lab merge-grades refuses to merge them")
	}
	if *sweep > 0 && *seed == 0 {
		*seed = randomSeed()
		with.Seed = *seed
		fmt.Fprintf(e.stderr, "lab grade-class: sweep cuts %d (pass --cuts %d to cut the input the same way again)\n", *seed, *seed)
	}

	var sb sandbox.Sandbox
	switch *sbName {
	case "process":
		sb = sandbox.NewProcess([]string{exe, "grade-class", sandboxExecArg})
	default: // "container", checked above
		// Ryuk, testcontainers' reaper, needs a registry; the sandbox
		// removes its own containers. Its banner would clutter the output.
		if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
			_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
		tclog.SetDefault(tclog.NewNoopLogger())
		c, err := sandbox.NewContainer(ctx, *image)
		if err != nil {
			if errors.Is(err, sandbox.ErrNoEngine) {
				return exitCannot, fmt.Errorf("%w (start one with docker/engine.sh, or use --sandbox process)", err)
			}
			return exitCannot, err
		}
		sb = c
	}
	defer sb.Close()

	// The results folder is made last of all the checks, by the grader
	// itself, before any student's program runs: none can plant a link in
	// it, and a usage error leaves none behind.
	results, err := class.CreateOut(*out)
	if err != nil {
		return exitCannot, fmt.Errorf("-out: %w (nothing was graded)", err)
	}
	// RemoveIfEmpty keeps a folder that holds any student's result.
	keep := false // set once the class is graded
	defer func() {
		if keep {
			results.Close()
		} else {
			_, _ = results.RemoveIfEmpty()
		}
	}()

	reference := []string{exe, "serve", manifest.Server}
	if manifest.Subject == "client" {
		reference = []string{exe, "client"} // the lab's own client is the reference
	}
	opts := class.Options{
		Lesson:       *lesson,
		LessonDir:    lessonFS,
		Sandbox:      sb,
		Jobs:         *jobs,
		TimeScale:    *scale,
		Reference:    reference,
		Sweep:        *sweep,
		Seed:         *seed,
		BuildTimeout: *buildTimeout,
		Exclude:      exclude,
		Shard:        shard,
		Root:         rootAbs,
		OnScale:      func(s float64) { with.TimeScale = s },
	}
	if earlier != nil {
		opts.Reuse = earlier.Reuse
	}
	if subs = shard.Filter(subs); len(subs) == 0 {
		keep = true
		return emptyShard(e, results, opts, sb.Name(), ignored)
	}
	if needsGo(subs) {
		opts.GoSeed = warmGoSeed(ctx, e.stderr)
	}

	// The calibration, then a line per student with the count and the time
	// left: redrawn in place on a terminal, plain lines off one.
	to, _ := grading.TermFor(e.stderr, e.getenv, "lab grade-class")
	prog := grading.NewTermProgress(e.stderr, to)
	opts.Progress = prog
	var writeErr error
	opts.OnResult = func(done, total int, s *class.Student) {
		if err := results.WriteStudent(s, formatList); err != nil && writeErr == nil {
			writeErr = err
		}
		if err := results.WriteStudentRecord(s, with); err != nil && writeErr == nil {
			writeErr = err
		}
	}
	how := "calibrating the deadlines against the reference server first"
	if *scale > 0 {
		how = fmt.Sprintf("deadlines × %g", *scale)
	}
	if *jobs == 0 {
		*jobs = class.DefaultJobs(sb)
	}
	opts.Jobs = *jobs
	fmt.Fprintf(e.stderr, "lab grade-class: grading %s in the %s sandbox, %d at a time; %s\n",
		grading.CountOf(len(subs), "submission", "submissions"), sb.Name(), min(*jobs, len(subs)), how)
	c, err := class.Grade(ctx, subsDir, opts)
	prog.Close()
	if p, ok := sb.(*sandbox.Process); ok && os.Geteuid() == 0 && !p.Namespaces() {
		fmt.Fprintln(e.stderr, "lab grade-class: note: the kernel refused new namespaces, so students' programs saw the machine's "+
			"processes, network and /tmp (what they left there was removed); see README, Teachers")
	}
	if err != nil && (c == nil || !c.Incomplete) {
		return exitCannot, err
	}
	keep = true
	if earlier != nil {
		notReused(e.stderr, earlier, c)
	}
	if writeErr != nil {
		return exitInternal, writeErr
	}
	if err := c.WriteGradebook(results); err != nil {
		return exitInternal, err
	}
	if err := results.WriteRecord(c, version, shard); err != nil {
		return exitInternal, err
	}

	var summary bytes.Buffer
	if err := c.WriteSummary(&summary); err != nil {
		return exitInternal, err
	}
	if _, err := e.stdout.Write(summary.Bytes()); err != nil {
		return exitInternal, fmt.Errorf("printing the summary: %w", err)
	}
	if c.Incomplete {
		return exitCannot, fmt.Errorf("%w: %d of %s graded, their results in %s; %d not graded (%s), "+
			"listed in grades.csv with the status not-graded: grade them again",
			err, len(c.Students), grading.CountOf(len(c.Students)+len(c.NotGraded), "submission", "submissions"), *out, len(c.NotGraded), someNames(c.NotGraded, 10))
	}
	fmt.Fprintf(e.stderr, "lab grade-class: results in %s (grades.csv, summary.md, students/ with one folder per student)\n", *out)
	return exitOK, nil
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
	c, err := class.Empty(opts.Lesson, opts.LessonDir, opts.TimeScale, sandboxName, ignored)
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
	return class.GradedWith{LabVersion: version, LabHash: hex.EncodeToString(h.Sum(nil)), Lesson: lesson, TimeScale: scale, Sweep: sweep, Seed: seed}, nil
}
