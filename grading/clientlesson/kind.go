package clientlesson

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientplay"
	"github.com/mcplab/mcplab/lab/clientscenario"
	"github.com/mcplab/mcplab/lessons"
)

// Kind is the client lesson kind ("subject: client"): a student's MCP
// client, for which the lab plays the servers its scenarios name and sees
// every byte the client sends them.
type Kind struct {
	// Servers finds the servers a scenario names, as the rig plays them
	// (internal/kinds gives the lab's own, internal/servers.ForRig): the
	// kind names none itself.
	Servers clientplay.Servers
	// Clients, when set, says whether the lab has the reference client a
	// manifest's client: line names: nil, or an error that says which
	// clients it has (internal/kinds sets it from internal/clients).
	Clients func(name string) error
}

// Name is the subject that names the kind.
func (Kind) Name() string { return "client" }

// Load reads a client lesson's grading scenarios and checks that each
// expect line names a check of the catalogue.
func (k Kind) Load(m *lessons.Manifest, fsys fs.FS, base string, checks []grading.Check) (grading.Lesson, error) {
	l, err := load(m, fsys, base, checks)
	if err != nil {
		return nil, err
	}
	l.servers = k.Servers
	return l, nil
}

// Lesson is a client lesson: its manifest, its grading scenarios and its
// checks.
type Lesson struct {
	grading.LessonBase
	// Scenarios are the grading scenarios, in the order they are played.
	Scenarios []*clientscenario.Scenario
	// servers finds the servers the scenarios name (the kind's Servers).
	servers clientplay.Servers
}

// Reference is the lesson's reference client, as lab client NAME starts
// it. The lab's clients serve no lesson data: lessonDir is not theirs to
// read (the rig plays the lesson's servers).
func (l *Lesson) Reference(lab, _ string) []string {
	return []string{lab, "client", l.Manifest().Client}
}

// Grade plays the lesson's scenarios with the client and judges it. The
// error is for the lab's own failures (a broken lesson, a cancelled ctx);
// a client that cannot be started gives a Result with Gradable false.
func (l *Lesson) Grade(ctx context.Context, opts grading.Options) (*grading.Result, error) {
	started := time.Now()
	if opts.Student == nil {
		return nil, fmt.Errorf("no client to grade")
	}
	return gradeClient(ctx, l, opts, started)
}

// load reads a client lesson's grading scenarios, whose files are in base
// inside root, and checks each against the catalogue.
func load(m *lessons.Manifest, root fs.FS, base string, checks []grading.Check) (*Lesson, error) {
	number := m.Number
	if err := clientJudges().Check(checks); err != nil {
		return nil, fmt.Errorf("lesson %d: %s: %w", number, m.Checks, err)
	}
	known := map[string]bool{}
	for _, c := range checks {
		known[c.ID] = true
	}
	files, err := m.GradingScenarios(root, base)
	if err != nil {
		return nil, err
	}
	scenarios, err := grading.ReadScenarios(m, root, files, clientscenario.Parse, func(f string, sc *clientscenario.Scenario) error {
		for _, e := range sc.Expect {
			if !known[e.Check] {
				return fmt.Errorf("lesson %d: scenario %s, expect line %d: check %q is not in %s", number, sc.Name, e.Line, e.Check, m.Checks)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Lesson{LessonBase: grading.NewLessonBase(m, checks), Scenarios: scenarios}, nil
}
