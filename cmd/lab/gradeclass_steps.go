package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"

	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/class"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lessons"
)

// classRun is one run of lab grade-class past its usage checks: the
// config, and what each step finds for the next.
type classRun struct {
	cfg *classConfig
	e   *env

	lessonFS iofs.FS           // the -lesson-dir folder, or nil for the built-in lessons
	manifest *lessons.Manifest // the lesson graded
	lesson   grading.Lesson    // the lesson, loaded by its kind
	subs     []class.Folder    // the submissions, the whole class
	ignored  []string          // what the submissions folder holds besides them
	rootAbs  string            // -root, absolute, or ""
	dirAbs   string            // -lesson-dir, absolute, or ""
	exe      string            // the lab binary
	with     class.GradedWith  // what every result depends on besides the submission
	earlier  *class.Earlier    // the -resume-from results, or nil
	writeErr error             // the first error writing a student's files
}

// find checks what the command line names, before anything is made: the
// lesson, the submissions, -root and -out. Every error is a usage error.
func (r *classRun) find() error {
	c := r.cfg
	if c.lessonDir != "" {
		r.lessonFS = dirFS(c.lessonDir)
		abs, err := filepath.Abs(c.lessonDir)
		if err != nil {
			return usagef("-lesson-dir %s: %v", c.lessonDir, err)
		}
		r.dirAbs = abs
	}
	manifest, err := kinds.Find(c.lesson, r.lessonFS)
	if err != nil {
		return usageError{err.Error()}
	}
	r.manifest = manifest
	if r.lesson, err = kinds.LoadLesson(c.lesson, r.lessonFS); err != nil {
		return usagef("-lesson %d: %v", c.lesson, err)
	}
	if info, err := os.Stat(c.subsDir); err != nil || !info.IsDir() {
		return usagef("%s is not a folder of submissions", c.subsDir)
	}
	if r.subs, r.ignored, err = class.List(c.subsDir, []string{c.out}); err != nil {
		return usageError{err.Error()}
	}
	if len(r.subs) == 0 {
		return usagef("%s holds no submission folders: give the folder that holds one folder per student", c.subsDir)
	}
	if r.rootAbs, err = checkRoot(c.root, r.subs); err != nil {
		return err
	}
	return checkClassOut(c.out)
}

// checkRoot checks that -root, when given, is a folder that holds every
// submission, and returns it absolute.
func checkRoot(root string, subs []class.Folder) (string, error) {
	if root == "" {
		return "", nil
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", usagef("-root: %v", err)
	}
	if info, err := os.Stat(rootAbs); err != nil || !info.IsDir() {
		return "", usagef("-root %s is not a folder", root)
	}
	for _, s := range subs {
		if d, err := filepath.Abs(s.Dir); err != nil || !inside(rootAbs, d) {
			return "", usagef("-root %s does not hold the submission %s: the mounted folder must hold every submission", root, s.Dir)
		}
	}
	return rootAbs, nil
}

// settle fixes what the grading depends on: the lab binary and its hash,
// the earlier results of -resume-from and the time scale they bring, and
// the sweep's cuts (picked and printed when not given).
func (r *classRun) settle() (int, error) {
	c := r.cfg
	exe, err := os.Executable()
	if err != nil {
		return exitInternal, fmt.Errorf("finding the lab binary: %w", err)
	}
	r.exe = exe
	if r.with, err = gradedWith(exe, c.lesson, c.scale, c.sweep, c.cuts); err != nil {
		return exitInternal, err
	}
	if err := r.loadEarlier(); err != nil {
		return exitCannot, err
	}
	if c.sharded() && c.scale == 0 {
		return exitCannot, usagef(shardNeedsScale)
	}
	if c.sweep > 0 && c.cuts == 0 {
		c.cuts = randomSeed()
		r.with.Cuts = c.cuts
		fmt.Fprintf(r.e.stderr, "lab grade-class: sweep cuts %d (pass --cuts %d to cut the input the same way again)\n", c.cuts, c.cuts)
	}
	return exitOK, nil
}

// loadEarlier reads the results of -resume-from, says what they may give,
// and takes their time scale when none is given.
func (r *classRun) loadEarlier() error {
	c := r.cfg
	if c.resumeFrom == "" {
		return nil
	}
	a, err1 := filepath.Abs(c.resumeFrom)
	b, err2 := filepath.Abs(c.out)
	if err1 != nil || err2 != nil || a == b {
		return usagef("-out must be a new folder, not the -resume-from one: the earlier results are kept until the new run is done")
	}
	earlier, err := class.LoadEarlierOf(c.resumeFrom, r.with, r.lesson.Checks())
	if err != nil {
		return usageError{"-resume-from: " + err.Error()}
	}
	r.earlier = earlier
	resumeNote(r.e.stderr, earlier, c.scale)
	if c.scale == 0 {
		c.scale = earlier.TimeScale
		r.with.TimeScale = c.scale
	}
	return nil
}

// openSandbox starts the sandbox of -sandbox that students' programs run
// in: the lab binary as the process sandbox's launcher, or a container
// engine.
func (r *classRun) openSandbox(ctx context.Context) (sandbox.Sandbox, error) {
	if r.cfg.sandbox == "process" {
		sb := sandbox.NewProcess([]string{r.exe, "grade-class", sandboxExecArg})
		// What a program run as the grader's own user must not reach: the
		// results, the earlier ones, and the key that signs the records.
		sb.Private = []string{r.cfg.out, r.cfg.resumeFrom}
		if key, err := class.RecordKeyFile(os.Getenv); err == nil {
			if _, err := class.EnsureRecordKey(key); err == nil {
				// A key the grader uses sits in a folder of its own that
				// only its user may enter (EnsureRecordKey makes it so).
				sb.Private = append(sb.Private, filepath.Dir(key))
			}
		}
		return sb, nil
	}
	// "container", checked by validate. Ryuk, testcontainers' reaper,
	// needs a registry; the sandbox removes its own containers. Its banner
	// would clutter the output.
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	tclog.SetDefault(tclog.NewNoopLogger())
	c, err := sandbox.NewContainer(ctx, r.cfg.image)
	if err != nil {
		if errors.Is(err, sandbox.ErrNoEngine) {
			return nil, fmt.Errorf("%w (start one with docker/engine.sh, or use --sandbox process)", err)
		}
		return nil, err
	}
	return c, nil
}

// options are the class.Options of the run, but for what the grading
// step adds (the progress, what is done with each result, the jobs).
func (r *classRun) options(sb sandbox.Sandbox) class.Options {
	c := r.cfg
	reference := r.lesson.Reference(r.exe, r.dirAbs)
	opts := class.Options{
		Kinds:        kinds.Builtin(),
		Lesson:       c.lesson,
		LessonDir:    r.lessonFS,
		Sandbox:      sb,
		Jobs:         c.jobs,
		TimeScale:    c.scale,
		Reference:    reference,
		Sweep:        c.sweep,
		Cuts:         c.cuts,
		BuildTimeout: c.buildTimeout,
		Exclude:      []string{c.out},
		Shard:        c.shard,
		Root:         r.rootAbs,
		OnScale:      func(s float64) { r.with.TimeScale = s },
	}
	if r.earlier != nil {
		opts.Reuse = r.earlier.Reuse
	}
	return opts
}

// grade makes the results folder and grades the class (or finishes an
// empty shard) in sb, writing each student's result as it ends and then
// the class's.
func (r *classRun) grade(ctx context.Context, sb sandbox.Sandbox) (int, error) {
	// The results folder is made last of all the checks, by the grader
	// itself, before any student's program runs: none can plant a link in
	// it, and a usage error leaves none behind.
	results, err := class.CreateOut(r.cfg.out)
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
	opts := r.options(sb)
	subs := r.cfg.shard.Filter(r.subs)
	if len(subs) == 0 {
		keep = true
		return emptyShard(r.e, results, opts, sb.Name(), r.ignored)
	}
	if needsGo(subs) {
		opts.GoSeed = warmGoSeed(ctx, r.e.stderr)
	}
	c, err := r.gradeStudents(ctx, sb, opts, results, len(subs))
	if err != nil && (c == nil || !c.Incomplete) {
		return exitCannot, err
	}
	keep = true
	if r.earlier != nil {
		notReused(r.e.stderr, r.earlier, c)
	}
	if r.writeErr != nil {
		return exitInternal, r.writeErr
	}
	return r.finish(c, results, err)
}

// gradeStudents grades the class's n submissions with opts, showing the
// progress and writing each student's files to results as their grading
// ends (the first error doing so goes to r.writeErr).
func (r *classRun) gradeStudents(ctx context.Context, sb sandbox.Sandbox, opts class.Options, results *class.Out, n int) (*class.Class, error) {
	// The calibration, then a line per student with the count and the time
	// left: redrawn in place on a terminal, plain lines off one.
	to, _ := grading.TermFor(r.e.stderr, r.e.getenv, "lab grade-class")
	prog := grading.NewTermProgress(r.e.stderr, to)
	opts.Progress = prog
	opts.OnResult = func(done, total int, s *class.Student) {
		if err := results.WriteStudent(s, r.cfg.formatList); err != nil && r.writeErr == nil {
			r.writeErr = err
		}
		if err := results.WriteStudentRecord(s, r.with); err != nil && r.writeErr == nil {
			r.writeErr = err
		}
	}
	how := "calibrating the deadlines against the lesson's reference first"
	if r.cfg.scale > 0 {
		how = fmt.Sprintf("deadlines × %g", r.cfg.scale)
	}
	jobs := r.cfg.jobs
	if jobs == 0 {
		jobs = class.DefaultJobs(sb)
	}
	opts.Jobs = jobs
	fmt.Fprintf(r.e.stderr, "lab grade-class: grading %s in the %s sandbox, %d at a time; %s\n",
		grading.CountOf(n, "submission", "submissions"), sb.Name(), min(jobs, n), how)
	c, err := class.Grade(ctx, r.cfg.subsDir, opts)
	prog.Close()
	if p, ok := sb.(*sandbox.Process); ok && os.Geteuid() == 0 && !p.Namespaces() {
		fmt.Fprintln(r.e.stderr, "lab grade-class: note: the kernel refused new namespaces, so students' programs saw the machine's "+
			"processes, network and /tmp (what they left there was removed); see README, Teachers")
	}
	return c, err
}

// finish writes the class's gradebook and record to results and prints
// its summary; a grading stopped half-way (gradeErr says why) exits 2,
// naming the students not graded.
func (r *classRun) finish(c *class.Class, results *class.Out, gradeErr error) (int, error) {
	if err := c.WriteGradebook(results); err != nil {
		return exitInternal, err
	}
	if err := results.WriteRecord(c, version, r.cfg.shard); err != nil {
		return exitInternal, err
	}
	var summary bytes.Buffer
	if err := c.WriteSummary(&summary); err != nil {
		return exitInternal, err
	}
	if _, err := r.e.stdout.Write(summary.Bytes()); err != nil {
		return exitInternal, fmt.Errorf("printing the summary: %w", err)
	}
	if c.Incomplete {
		return exitCannot, fmt.Errorf("%w: %d of %s graded, their results in %s; %d not graded (%s), "+
			"listed in grades.csv with the status not-graded: grade them again",
			gradeErr, len(c.Students), grading.CountOf(len(c.Students)+len(c.NotGraded), "submission", "submissions"),
			r.cfg.out, len(c.NotGraded), someNames(c.NotGraded, 10))
	}
	fmt.Fprintf(r.e.stderr, "lab grade-class: results in %s (grades.csv, summary.md, students/ with one folder per student)\n", r.cfg.out)
	return exitOK, nil
}
