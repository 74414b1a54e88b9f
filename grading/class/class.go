// Package class grades a whole class: every submission folder of a
// directory, in parallel, each in a sandbox, with deadlines calibrated
// against the lesson's reference program on the same machine. It writes what
// teachers' platforms read: a result per student in any of the report
// formats, a gradebook (grades.csv) and a summary.
//
// A submission folder holds an executable "run" that starts the student's
// program (what the lesson's kind grades: a stdio server, a client), and
// may hold an executable "build", run once first with its own time limit.
// Both get LAB_WORK, a writable folder they share.
//
// Every run ends in a classified Result. A submission that cannot be
// graded (no run, a build that fails, a program that cannot be started, a
// grading run that overshoots its whole-run limit) gets Gradable false,
// never a failing score. A run whose verdict rests on deadlines (it timed
// out, or a check failed only because a deadline passed) is run once more
// with every deadline grading.ConfirmScale times longer, and each such
// verdict is charged only when the rerun confirms it (grading.Confirm); a
// timed-out run is marked flaky when its rerun disagrees. A wrong answer
// is never run again.
package class

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/lessons"
)

// Options say how to grade a class. The zero value of each field is a
// sensible default, except Sandbox, which is required.
type Options struct {
	// Lesson is the lesson's number; 0 means 1. LessonDir, when set, is a
	// lesson folder to read the grading data from (see grading.Options).
	Lesson    int
	LessonDir fs.FS
	// Sandbox builds and runs the submissions.
	Sandbox sandbox.Sandbox
	// Jobs is how many submissions are graded at once; 0 means
	// DefaultJobs(Sandbox).
	Jobs int
	// TimeScale multiplies every deadline. 0 means calibrate: grade the
	// Reference program through the same sandbox first and derive the scale
	// from how long it took (see Calibration).
	TimeScale float64
	// Reference is the command of the lesson's reference program, such as
	// []string{"/usr/local/bin/lab", "serve", "reader"} (a server lesson's)
	// or {"/usr/local/bin/lab", "client"} (a client lesson's); calibration
	// needs it.
	Reference []string
	// Kinds are the lesson kinds the lesson's subject is looked up in
	// (required; the lab's own are internal/kinds.Builtin's).
	Kinds *grading.Kinds
	// Sweep and Cuts ask for the chunk sweep (see grading.Options).
	Sweep int
	Cuts  int64
	// MaxOutput caps each output stream of each run, in bytes; 0 means
	// 256 KiB, a hundred times what a lesson's server writes.
	MaxOutput int64
	// BuildTimeout bounds a build step (before scaling); 0 means 3 minutes.
	BuildTimeout time.Duration
	// RunLimits and BuildLimits bound the student's program and the build; zero fields
	// take sandbox.DefaultRunLimits and sandbox.DefaultBuildLimits.
	RunLimits, BuildLimits sandbox.Limits
	// Root, when set, is the folder the container sandbox mounts read-only
	// instead of each submission's own folder; it must hold every
	// submission. Share lists more host paths to mount read-only.
	Root  string
	Share []string
	// GoSeed is a Go build cache that workspaces start from (see
	// sandbox.WarmGoCache); empty means builds start with an empty cache.
	GoSeed string
	// WorkDir is where workspaces are made; empty means the system's
	// temporary folder. It must be a folder every user may pass through.
	WorkDir string
	// Exclude lists folders of the submissions directory that are not
	// submissions (the output folder, when it sits there).
	Exclude []string
	// Shard, when not the whole class, grades only the students it holds.
	Shard Shard
	// Reuse, when set, is asked for an earlier result of each submission
	// once its files are identified; a Student it returns is taken as the
	// result instead of grading the submission again.
	Reuse func(name string, sub *grading.Submission) *Student
	// OnScale, when set, is called once with the scale of the deadlines
	// (the one given, or the one calibrated), before any student is graded.
	OnScale func(scale float64)
	// OnResult, when set, is called as each student's grading ends, one
	// call at a time, with how many are done out of how many.
	OnResult func(done, total int, s *Student)
	// Progress, when set, is told as the calibration's runs (with their
	// scenarios) and each student's grading start and end (see
	// grading.ProgressEvent); a student's own scenarios are not told, as
	// several are graded at once.
	Progress grading.Progress
}

// DefaultJobs is the number of submissions graded at once by default.
// Grading mostly waits on the scenarios' schedules, so more jobs than cores
// pays: eight per core with the process sandbox. Containers cost the engine
// time to create and start, and a loaded engine is slow to report a
// container's exit, which moves verdicts that hang on timing: two per core
// with the container sandbox.
func DefaultJobs(sb sandbox.Sandbox) int {
	per := 8
	if sb != nil && sb.Name() == "container" {
		per = 2
	}
	return max(2, per*runtime.GOMAXPROCS(0))
}

// Student is one submission and its result.
type Student struct {
	// Name is the submission folder's name; Dir its path.
	Name string
	Dir  string
	// Result is the verdict, tied to what was graded (Result.Submission).
	Result *grading.Result
	// Attempts is 2 when a run whose verdict rested on deadlines (it timed
	// out, or a check failed only because a deadline passed) was run again
	// at a larger time scale to confirm it (see grading.Confirm).
	Attempts int
	// Flags name what the teacher should look at before trusting the
	// score (the Flag constants), each also explained in the result's
	// outcome detail. They never change the score.
	Flags []string
}

// The flags a student's result may carry (see Student.Flags).
const (
	// FlagLabBinary: the submission holds a file identical to the lab
	// binary (the reference program), by size and SHA-256.
	FlagLabBinary = "contains-lab-binary"
	// FlagReferenceTranscript: the student's run gave the reference's
	// answers and exits, and its log lines wherever the program ended by
	// itself (ids, times and line order aside); for a client lesson, the
	// messages it sent its servers and the answers it gave.
	FlagReferenceTranscript = "same-transcript-as-reference"
	// FlagUnidentified: the submission's files could not be read in time
	// (or within the size allowed) to tie the result to them.
	FlagUnidentified = "unidentified"
	// FlagWorkspaceFull: the submission filled its scratch space (LAB_WORK),
	// so it ran out of resources.
	FlagWorkspaceFull = "workspace-full"
)

// Class is the outcome of grading a class.
type Class struct {
	Lesson   int
	Sandbox  string
	Jobs     int
	MaxScore int
	// TimeScale is the scale every deadline was multiplied by.
	TimeScale float64
	// Calibration is how the scale was found, or nil when it was given.
	Calibration *Calibration
	// Checks are the lesson's checks, in order (id and title).
	Checks []grading.Check
	// Students are sorted by name.
	Students []*Student
	// Ignored lists the entries of the submissions directory that are not
	// submission folders (plain files), by name.
	Ignored  []string
	Duration time.Duration
	// Incomplete is set when the grading was stopped (a signal) before
	// every submission was graded: Students then holds those that were,
	// NotGraded names the others, and StoppedBy says what stopped it.
	Incomplete bool
	NotGraded  []string
	StoppedBy  string
}

// stopWithin is how long Grade waits, once it is stopped, for the
// submissions being graded to let go; a worker still stuck then is left
// behind, and the class returned without it.
const stopWithin = 3 * time.Second

// Grade grades every submission folder in dir. The error is for the lab's
// own failures (no submissions, a broken lesson, a failed calibration, a
// cancelled ctx); whatever a submission does wrong is in its Result.
//
// When ctx ends once the grading of submissions has begun, Grade returns
// within a few seconds, even if a submission is stuck, with both the error
// and the class so far: Incomplete, holding the students already graded.
// A student whose grading the stop cut short is in NotGraded, never given
// the verdict of a run that was cut (such as "could not start"). A stop
// that comes once every student is graded leaves the class complete.
func Grade(ctx context.Context, dir string, opts Options) (*Class, error) {
	started := time.Now()
	if opts.Sandbox == nil {
		return nil, errors.New("no sandbox to grade in")
	}
	lesson, err := opts.loadLesson()
	if err != nil {
		return nil, err
	}
	subs, ignored, err := classFolders(dir, &opts)
	if err != nil {
		return nil, err
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs(opts.Sandbox)
	}
	jobs = min(jobs, len(subs))
	root, err := makeWorkRoot(opts.WorkDir)
	if err != nil {
		return nil, err
	}
	defer removeRoot(root)

	c := &Class{Lesson: lesson.Manifest().Number, Sandbox: opts.Sandbox.Name(), Jobs: jobs, Checks: lesson.Checks(), Ignored: ignored}
	for _, ch := range lesson.Checks() {
		c.MaxScore += ch.Points
	}
	g, err := c.prepare(ctx, lesson, opts, root)
	if err != nil {
		return nil, err
	}
	students, lost := newPool(g, subs).run(ctx, jobs)
	for i, st := range students {
		if st != nil {
			c.Students = append(c.Students, st)
		} else {
			c.NotGraded = append(c.NotGraded, subs[i].Name)
		}
	}
	c.Duration = time.Since(started)
	return c.stopped(ctx, lost)
}

// classFolders lists the submission folders of dir that opts grades: those
// of its shard, every one inside opts.Root when it is set (made absolute).
func classFolders(dir string, opts *Options) ([]Folder, []string, error) {
	subs, ignored, err := List(dir, opts.Exclude)
	if err != nil {
		return nil, nil, err
	}
	if len(subs) == 0 {
		return nil, nil, fmt.Errorf("%s holds no submission folders", dir)
	}
	if subs = opts.Shard.Filter(subs); len(subs) == 0 {
		return nil, nil, fmt.Errorf("shard %s of %s holds no submission folders", opts.Shard, dir)
	}
	if opts.Root != "" {
		if opts.Root, err = filepath.Abs(opts.Root); err != nil {
			return nil, nil, fmt.Errorf("the mounted root: %w", err)
		}
		for _, s := range subs {
			if !within(opts.Root, s.Dir) {
				return nil, nil, fmt.Errorf("the submission %s is not inside the mounted root %s", s.Dir, opts.Root)
			}
		}
	}
	return subs, ignored, nil
}

// makeWorkRoot makes the folder, in workDir (or the system's), that holds
// every student's workspace.
func makeWorkRoot(workDir string) (string, error) {
	root, err := os.MkdirTemp(workDir, "mcplab-class-")
	if err != nil {
		return "", fmt.Errorf("making the workspaces' folder: %w", err)
	}
	// The sandbox users must pass through to their own workspaces.
	if err := os.Chmod(root, 0o711); err != nil {
		removeRoot(root)
		return "", fmt.Errorf("making the workspaces' folder: %w", err)
	}
	return root, nil
}

// prepare settles the class's time scale (calibrating it when opts gives
// none, and grading the reference for its transcript when opts names one)
// and returns the grader of its students.
func (c *Class) prepare(ctx context.Context, lesson grading.Lesson, opts Options, root string) (*grader, error) {
	c.TimeScale = opts.TimeScale
	var refTranscript []grading.Event
	if c.TimeScale <= 0 || len(opts.Reference) > 0 {
		cal, ref, err := calibrate(ctx, lesson, opts, root, c.TimeScale <= 0)
		if err != nil {
			return nil, err
		}
		if c.TimeScale <= 0 {
			c.Calibration = cal
			c.TimeScale = cal.Scale
		}
		refTranscript = ref
	}
	if opts.OnScale != nil {
		opts.OnScale(c.TimeScale)
	}
	lab, err := fingerprint(opts.Reference)
	if err != nil {
		return nil, err
	}
	return &grader{opts: opts, lesson: lesson, scale: c.TimeScale, root: root, lab: lab, reference: refTranscript}, nil
}

// stopped is what Grade returns once the pool is done: the lab's own
// failure lost, when ctx was not stopped; the class Incomplete, with the
// error, when ctx was stopped before every student was graded; or the
// class.
func (c *Class) stopped(ctx context.Context, lost error) (*Class, error) {
	if lost != nil && ctx.Err() == nil {
		if errors.Is(lost, context.Canceled) {
			return nil, fmt.Errorf("grading stopped: %w", lost)
		}
		return nil, lost
	}
	if err := context.Cause(ctx); err != nil && len(c.NotGraded) > 0 {
		c.Incomplete = true
		c.StoppedBy = err.Error()
		return c, fmt.Errorf("grading stopped: %w", err)
	}
	return c, nil
}

// removeRoot removes the workspaces' folder: each workspace (unmounting
// its scratch file system, even one still in use), then the rest.
func removeRoot(root string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		_ = sandbox.RemoveWorkspace(filepath.Join(root, e.Name()))
	}
	_ = os.RemoveAll(root)
}

// Folder is one submission folder: its name and its absolute path.
type Folder struct {
	Name, Dir string
}

// List returns the submission folders of dir, sorted by name, and the names
// of the other entries it ignored. Hidden entries (a name that starts with
// a dot) and the folders in exclude are left out without a word.
func List(dir string, exclude []string) ([]Folder, []string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the submissions: %w", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the submissions: %w", err)
	}
	skip := map[string]bool{}
	for _, e := range exclude {
		if a, err := filepath.Abs(e); err == nil {
			skip[a] = true
		}
	}
	var subs []Folder
	var ignored []string
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(abs, name)
		if strings.HasPrefix(name, ".") || skip[p] {
			continue
		}
		info, err := os.Stat(p) // follows a symlink to a folder
		if err != nil || !info.IsDir() {
			ignored = append(ignored, name)
			continue
		}
		subs = append(subs, Folder{Name: name, Dir: p})
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name < subs[j].Name })
	return subs, ignored, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// grader grades one submission at a time for a worker.
type grader struct {
	opts   Options
	lesson grading.Lesson
	scale  float64
	root   string
	// lab is the lab binary's fingerprint (nil when there is no reference
	// program); reference is the reference server's transcript (nil when
	// it was not run).
	lab       *labPrint
	reference []grading.Event
}

// programWord is program, what the student wrote ("server", "client"), or
// "program" for a lesson that does not say.
func programWord(program string) string {
	if program == "" {
		return "program"
	}
	return program
}

// buildOutputCap bounds the build output kept for the report.
const buildOutputCap = 16 << 10

// student grades one submission in slot. The error is for a cancelled ctx
// or a broken lesson only.
func (g *grader) student(ctx context.Context, slot, index int, sub Folder) (*Student, error) {
	started := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st := &Student{Name: sub.Name, Dir: sub.Dir}
	in := inspect(ctx, sub.Dir, g.lab, grading.ScaleBy(identifyWithin, max(g.scale, 1)))
	if g.opts.Reuse != nil && in.problem == "" && in.sub != nil {
		if prev := g.opts.Reuse(sub.Name, in.sub); prev != nil {
			return prev, nil
		}
	}
	var notes []string
	if in.problem != "" {
		st.Flags = append(st.Flags, FlagUnidentified)
		notes = append(notes, "The grader could not identify the submission's files ("+in.problem+
			"), so this result is not tied to a hash of them.")
	}
	if len(in.labCopies) > 0 {
		st.Flags = append(st.Flags, FlagLabBinary)
		program := programWord(grading.ProgramOf(g.lesson))
		notes = append(notes, fmt.Sprintf("The submission holds a copy of the lab binary, which is the lesson's reference %s itself (%s): "+
			"check that the student wrote the %s that was graded.", program, strings.Join(in.labCopies, ", "), program))
	}
	work := filepath.Join(g.root, fmt.Sprintf("job-%04d", index))
	finish := func(res *grading.Result) (*Student, error) {
		res.Submission = in.sub
		res.DurationMS = time.Since(started).Milliseconds()
		if res.Gradable && g.reference != nil && sameAsReference(res.Transcript, g.reference) {
			st.Flags = append(st.Flags, FlagReferenceTranscript)
			notes = append(notes, sameAsReferenceNote(res.Transcript))
		}
		if sandbox.WorkspaceFull(work) {
			st.Flags = append(st.Flags, FlagWorkspaceFull)
			notes = append(notes, "The submission filled its scratch space (LAB_WORK, and each run's /tmp, /var/tmp and /dev/shm, which share one cap) and ran out of room: it was out of resources, and its own writes failed with \"no space left on device\".")
		}
		if len(notes) > 0 {
			res.Outcome.Detail = strings.TrimSpace(res.Outcome.Detail + " Flagged for the teacher: " + strings.Join(notes, " "))
		}
		st.Result = res
		return st, nil
	}

	run := filepath.Join(sub.Dir, "run")
	if why := notRunnable(run); why != "" {
		program := grading.ProgramOf(g.lesson)
		if program == "" {
			program = "program"
		}
		return finish(g.ungradable(grading.OutcomeCouldNotStart, why+fmt.Sprintf(
			" A submission folder needs an executable file named run that starts the %s (for example: #!/bin/sh, then exec python3 %s.py \"$@\").", program, program)))
	}
	defer sandbox.RemoveWorkspace(work)
	if err := g.opts.Sandbox.Workspace(work, slot, g.seedFor(sub.Dir)); err != nil {
		return finish(g.ungradable(grading.OutcomeCouldNotStart, "The grader could not prepare the submission's workspace: "+err.Error()+"."))
	}
	spec := sandbox.Spec{Dir: sub.Dir, Work: work, Slot: slot, Root: g.opts.Root, Share: g.opts.Share}

	if res := g.build(ctx, spec); res != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return finish(res)
	}

	spec.Path, spec.Limits = run, g.opts.RunLimits
	starter := g.opts.Sandbox.Starter(spec)
	opts := g.gradeOptions(starter)
	res, err := g.attempt(ctx, opts)
	if err != nil {
		return nil, err
	}
	st.Attempts = 1
	if grading.NeedsConfirming(res) {
		before := summarize(res)
		res, err = grading.Confirm(ctx, attempts{g}, opts, res)
		if err != nil {
			return nil, err
		}
		st.Attempts = 2
		markFlaky(before, res)
	}
	return finish(explainExec(res, run))
}

// seedFor returns the Go seed cache for a submission that has a build step.
func (g *grader) seedFor(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "build")); err != nil {
		return ""
	}
	return g.opts.GoSeed
}

// build runs the submission's build step, when it has one. It returns nil
// when the build succeeded (or there is none), else the ungradable result.
func (g *grader) build(ctx context.Context, spec sandbox.Spec) *grading.Result {
	path := filepath.Join(spec.Dir, "build")
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if why := notRunnable(path); why != "" {
		return g.ungradable(grading.OutcomeBuildFailed, why+" The build step must be an executable file named build (or be left out).")
	}
	spec.Path, spec.Limits = path, g.opts.BuildLimits.Or(sandbox.DefaultBuildLimits())
	limit := g.opts.BuildTimeout
	if limit <= 0 {
		limit = 3 * time.Minute
	}
	limit = time.Duration(float64(limit) * g.scale)
	r := sandbox.RunToEnd(ctx, g.opts.Sandbox.Starter(spec), limit, buildOutputCap)
	var why string
	switch {
	case r.StartErr != nil:
		why = fmt.Sprintf("The build step could not be started: %v.", r.StartErr)
	case r.TimedOut:
		why = fmt.Sprintf("The build step was still running after %v and was stopped.", limit.Round(time.Second))
	case r.Exit.Reason != "":
		why = fmt.Sprintf("The build step was %s.", r.Exit.Reason)
	case !r.Exit.OK():
		why = fmt.Sprintf("The build step %s.", r.Exit)
	default:
		return nil
	}
	out := strings.TrimSpace(r.Output)
	if out == "" {
		out = "(nothing)"
	}
	return Ungradable(g.lesson, grading.OutcomeBuildFailed, why, out)
}

// gradeOptions are the options one submission's runs are graded with.
func (g *grader) gradeOptions(starter proc.Starter) grading.Options {
	return grading.Options{
		Lesson: g.lesson.Manifest().Number, LessonDir: g.opts.LessonDir, Student: starter,
		TimeScale: g.scale, Sweep: g.opts.Sweep, Cuts: g.opts.Cuts, MaxOutput: g.maxOutput(),
		Relay: g.opts.relay(),
	}
}

// attempts is the class's lesson as grading.Confirm grades it again: each
// grade is an attempt, under the whole-run limit of its own time scale.
type attempts struct{ g *grader }

// The lesson's own methods, for grading.Lesson.
func (a attempts) Manifest() *lessons.Manifest { return a.g.lesson.Manifest() }
func (a attempts) Checks() []grading.Check     { return a.g.lesson.Checks() }
func (a attempts) Budget(sweeps int, startCost time.Duration) time.Duration {
	return a.g.lesson.Budget(sweeps, startCost)
}
func (a attempts) Designed(startCost time.Duration) time.Duration {
	return a.g.lesson.Designed(startCost)
}
func (a attempts) Reference(lab, lessonDir string) []string {
	return a.g.lesson.Reference(lab, lessonDir)
}

// Grade is one attempt (see grader.attempt).
func (a attempts) Grade(ctx context.Context, opts grading.Options) (*grading.Result, error) {
	return a.g.attempt(ctx, opts)
}

// attempt is one grading run under the whole-run limit of opts' time
// scale. Overshooting the limit makes the result ungradable: every step of
// a run has a deadline of its own, so only an overloaded machine gets
// there.
func (g *grader) attempt(ctx context.Context, opts grading.Options) (*grading.Result, error) {
	limit := runLimit(g.lesson, g.opts.Sweep, opts.TimeScale, g.opts.Sandbox.StartCost())
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := g.lesson.Grade(runCtx, opts)
	switch {
	case ctx.Err() != nil:
		// Stopped: whatever the run made of it (a start refused with
		// "context canceled", a server killed mid-scenario) is not the
		// student's doing.
		return nil, ctx.Err()
	case err == nil:
		return res, nil
	case runCtx.Err() != nil:
		return g.ungradable(grading.OutcomeTimeout, fmt.Sprintf(
			"The grading run went over its whole-run limit of %v and was stopped. Every step of a run has a deadline of its own, "+
				"so this points at an overloaded machine rather than at the %s: grade this submission again, or raise --time-scale.",
			limit.Round(time.Second), programWord(grading.ProgramOf(g.lesson)))), nil
	}
	return nil, err
}

func (g *grader) maxOutput() int64 {
	if g.opts.MaxOutput > 0 {
		return g.opts.MaxOutput
	}
	return 256 << 10
}

// runLimit is the whole-run limit of grading one submission: one and a half
// times the longest a run can last when every deadline of every scenario
// runs out, plus ten seconds.
func runLimit(lesson grading.Lesson, sweeps int, scale float64, startCost time.Duration) time.Duration {
	total := lesson.Budget(sweeps, startCost)
	return time.Duration(float64(total)*max(scale, 1)*1.5) + 10*time.Second
}

// relay is the command a client lesson's stdio servers are reached
// through: the reference program's relay (it is the lab binary), or this
// binary's when there is no reference.
func (o Options) relay() []string {
	if len(o.Reference) > 0 {
		return []string{o.Reference[0], "relay"}
	}
	return nil
}

// ungradable is the result of a submission that could not be graded.
func (g *grader) ungradable(kind grading.OutcomeKind, problem string) *grading.Result {
	return Ungradable(g.lesson, kind, problem, "")
}

// Ungradable is the result of a submission that could not be graded: every
// check skipped with the reason, no score, Gradable false. The problem
// says why in a sentence or two; output, when set, is what the failing
// step wrote, which the Problem then shows after the sentence.
func Ungradable(lesson grading.Lesson, kind grading.OutcomeKind, problem, output string) *grading.Result {
	res := &grading.Result{Lesson: lesson.Manifest().Number, Program: grading.ProgramOf(lesson), Gradable: false, Problem: problem,
		Outcome: grading.Outcome{Kind: kind, Detail: problem}}
	if output != "" {
		res.Problem += " Its output:\n" + output
	}
	for _, c := range lesson.Checks() {
		res.MaxScore += c.Points
		res.Checks = append(res.Checks, grading.CheckResult{ID: c.ID, Title: c.Title, Status: grading.StatusSkip,
			MaxPoints: c.Points, Message: "Not judged: the submission could not be graded (" + string(kind) + ").", Rule: c.Rule, Fix: c.Fix})
	}
	return res
}

// notRunnable says why path cannot be run, or "" when it can.
func notRunnable(path string) string {
	name := filepath.Base(path)
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("The submission has no file named %s.", name)
	case err != nil:
		return fmt.Sprintf("The grader cannot read %s: %v.", name, err)
	case info.IsDir():
		return fmt.Sprintf("%s is a folder, not a program.", name)
	case info.Mode().Perm()&0o111 == 0:
		return fmt.Sprintf("%s is not executable (run chmod +x %s, and commit the mode: git update-index --chmod=+x %s).", name, name, name)
	}
	return ""
}

// runSummary is what tells two runs of one submission apart: how a
// timed-out run's rerun is weighed against it (see markFlaky).
type runSummary struct {
	kind     grading.OutcomeKind
	detail   string
	score    int
	failed   []string
	gradable bool
}

// summarize sums res up before grading.Confirm reworks it.
func summarize(res *grading.Result) runSummary {
	return runSummary{kind: res.Outcome.Kind, detail: res.Outcome.Detail, score: res.Score, failed: res.Failed(), gradable: res.Gradable}
}

// markFlaky marks the confirmed result res flaky when the first run, sum
// up as first, timed out and the confirmed result disagrees with it (the
// first met a deadline the second did not: the machine, not the program,
// was slow), and says so in its detail. A first run that did not time out
// had its deadline failures confirmed check by check, which the detail
// says already: that is not flaky.
func markFlaky(first runSummary, res *grading.Result) {
	if first.kind != grading.OutcomeTimeout {
		return
	}
	agree := first.score == res.Score && first.kind == res.Outcome.Kind &&
		slices.Equal(first.failed, res.Failed()) && first.gradable == res.Gradable
	if agree {
		return
	}
	res.Flaky = true
	res.Outcome.Detail = strings.TrimSpace(res.Outcome.Detail + fmt.Sprintf(
		" This result is flaky: the first run timed out (%s, score %d), and the rerun ended %s with score %d.",
		first.detail, first.score, res.Outcome.Kind, res.Score))
}
