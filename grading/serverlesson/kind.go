package serverlesson

import (
	"context"
	"io/fs"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lessons"
)

// Kind is the server lesson kind ("subject: server"): a student's stdio
// server, which the lab's scripted client plays the grading scenarios
// against.
type Kind struct {
	// Servers, when set, says whether the lab has the reference server a
	// manifest's server: line names: nil, or an error that says which
	// servers it has (internal/kinds sets it from internal/servers).
	Servers func(name string) error
}

// Name is the subject that names the kind.
func (Kind) Name() string { return "server" }

// Load reads a server lesson's grading scenarios and checks that each tags
// only checks of its catalogue that an answer can show.
func (Kind) Load(m *lessons.Manifest, fsys fs.FS, base string, checks []grading.Check) (grading.Lesson, error) {
	return load(m, fsys, base, checks)
}

// Lesson is a server lesson: its manifest, its grading scenarios and its
// checks.
type Lesson struct {
	grading.LessonBase
	// Scenarios are the grading scenarios, in the order they are played.
	Scenarios []*scenario.Scenario
}

// Reference is the lesson's reference server, as lab serve NAME starts it;
// for a lesson read from the folder lessonDir, lab serve --lesson-dir
// lessonDir NAME, so that it serves the folder's own data.
func (l *Lesson) Reference(lab, lessonDir string) []string {
	m := l.Manifest()
	if lessonDir == "" || m.BuiltIn() {
		return []string{lab, "serve", m.Server}
	}
	return []string{lab, "serve", "--lesson-dir", lessonDir, m.Server}
}

// Load reads server lesson number through the core's loader (see
// grading.LoadLesson), from dir when it is set.
func Load(number int, dir fs.FS) (*Lesson, error) {
	return grading.LoadKind[*Lesson](Kind{}, number, dir)
}

// Grade loads the server lesson opts name and grades opts.Student against
// it (see Lesson.Grade).
func Grade(ctx context.Context, opts grading.Options) (*grading.Result, error) {
	return grading.GradeKind(ctx, Kind{}, opts)
}

// Budget is the longest one grade can take at time scale 1 when every
// deadline of every scenario runs out: for each scenario the start, the
// ready wait, its schedule, each step's wait, the exit and the drain; and
// sweeps more runs of the longest scenario.
func (l *Lesson) Budget(sweeps int, startCost time.Duration) time.Duration {
	var total, longest time.Duration
	for _, sc := range l.Scenarios {
		// The scripted client's own deadlines (see lab/stdioprobe), which a
		// whole-run limit must leave room for.
		d := startCost + stdioprobe.ReadyDeadline + designed(sc) + stdioprobe.ExitDeadline + stdioprobe.DrainDeadline
		for _, st := range sc.Steps {
			d += st.Within
		}
		total += d
		longest = max(longest, d)
	}
	return total + time.Duration(sweeps)*longest
}

// Designed is about how long a correct server takes to be graded: each
// scenario's own schedule, and a start each.
func (l *Lesson) Designed(startCost time.Duration) time.Duration {
	var total time.Duration
	for _, sc := range l.Scenarios {
		total += designed(sc) + startCost
	}
	return total
}

// designed is how long a scenario lasts by its own schedule: the time of
// its last send or close.
func designed(sc *scenario.Scenario) time.Duration {
	var d time.Duration
	for _, st := range sc.Steps {
		if st.Kind == scenario.StepSend || st.Kind == scenario.StepClose {
			d = max(d, st.At)
		}
	}
	return d
}
