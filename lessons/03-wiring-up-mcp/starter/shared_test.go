package starter_test

// This file does, once for the whole test binary, the work several tests
// share: each starter staged after each number of parts (and, for Go,
// built), and every grade starters_test.go compares with README.md's
// tables, started all at once. TestMain removes what they leave.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcplab/mcplab/internal/kinds"
	"github.com/mcplab/mcplab/lab/proc"

	"github.com/mcplab/mcplab/grading"
)

func TestMain(m *testing.M) {
	code := m.Run()
	// A grade no test waited for (a -run that picked one test) still
	// runs in a folder of scratch: let it end first.
	gradesRunning.Wait()
	if root, err := scratch(); err == nil {
		os.RemoveAll(root)
	}
	if labPath != "" {
		os.RemoveAll(filepath.Dir(labPath))
	}
	os.Exit(code)
}

// scratch is the folder of every staged starter.
var scratch = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "lesson3-starters-") })

// stageKey names a starter after some parts.
type stageKey struct {
	lang  string
	parts int
}

// stagedStarter is a starter staged after some parts: its folder and the
// argv that starts it, or why it cannot run here (skip) or be staged.
type stagedStarter struct {
	once sync.Once
	dir  string
	argv []string
	skip string
	err  error
}

var (
	stagesMu sync.Mutex
	stages   = map[stageKey]*stagedStarter{}
)

// stage stages l after the first parts parts, once for every test and
// goroutine that asks.
func (l language) stage(parts int) *stagedStarter {
	stagesMu.Lock()
	s := stages[stageKey{l.name, parts}]
	if s == nil {
		s = &stagedStarter{}
		stages[stageKey{l.name, parts}] = s
	}
	stagesMu.Unlock()
	s.once.Do(func() {
		root, err := scratch()
		if err != nil {
			s.err = fmt.Errorf("making a folder for the starters: %w", err)
			return
		}
		dir, err := os.MkdirTemp(root, fmt.Sprintf("%s-%d-", l.dir, parts))
		if err != nil {
			s.err = fmt.Errorf("staging the %s starter: %w", l.name, err)
			return
		}
		bin, err := os.MkdirTemp(root, fmt.Sprintf("%s-%d-bin-", l.dir, parts))
		if err != nil {
			s.err = fmt.Errorf("staging the %s starter: %w", l.name, err)
			return
		}
		if s.skip, s.err = l.stageInto(dir, parts); s.skip != "" || s.err != nil {
			return
		}
		s.dir = dir
		s.argv, s.skip, s.err = l.commandIn(dir, bin)
	})
	return s
}

// prepared is stage for a test: the starter's folder and argv after the
// first parts parts. It skips the test when the language cannot run here
// and fails it when the starter cannot be staged. Tests must not change
// the folder: other tests run the same one.
func (l language) prepared(t *testing.T, parts int) (dir string, argv []string) {
	t.Helper()
	s := l.stage(parts)
	if s.skip != "" {
		t.Skip(s.skip)
	}
	if s.err != nil {
		t.Fatalf("the %s starter after %d part(s): %v", l.name, parts, s.err)
	}
	return s.dir, s.argv
}

// pendingGrade is one grade of a starter, running or done.
type pendingGrade struct {
	done chan struct{}
	res  *grading.Result
	skip string
	err  error
}

var (
	gradesOnce    sync.Once
	grades        map[stageKey]*pendingGrade
	gradesRunning sync.WaitGroup
)

// startGrades starts, the first time it is called, every grade the tests
// of starters_test.go compare (only the starters as shipped in -short
// mode), all at once. A grade mostly waits (for a timeout a part's trap
// makes the starter wait out, for a client to end its servers), so
// eighteen share two cores well; as parallel subtests, only -parallel of
// them (GOMAXPROCS, so two here) would run at a time. They start with the
// first test that needs one, after the tests that run the starters against
// the demo servers with deadlines that do not scale: a machine busy with
// eighteen grades could make those wait too long.
func startGrades() {
	gradesOnce.Do(func() {
		grades = map[stageKey]*pendingGrade{}
		last := len(partNames)
		if testing.Short() {
			last = 0
		}
		for _, l := range languages {
			for parts := 0; parts <= last; parts++ {
				g := &pendingGrade{done: make(chan struct{})}
				grades[stageKey{l.name, parts}] = g
				gradesRunning.Add(1)
				go func() {
					defer gradesRunning.Done()
					defer close(g.done)
					g.res, g.skip, g.err = l.grade(parts)
				}()
			}
		}
	})
}

// grade grades the starter after the first parts parts with lesson 3's
// checks, the lab built from this repository relaying the stdio servers.
func (l language) grade(parts int) (*grading.Result, string, error) {
	relay, err := labBuilt()
	if err != nil {
		return nil, "", err
	}
	s := l.stage(parts)
	if s.skip != "" || s.err != nil {
		return nil, s.skip, s.err
	}
	res, err := kinds.Grade(context.Background(), grading.Options{
		Lesson:    3,
		Student:   proc.Command{Path: s.argv[0], Args: s.argv[1:], Dir: s.dir},
		Relay:     []string{relay, "relay"},
		TimeScale: timeScale,
	})
	if err != nil {
		return nil, "", fmt.Errorf("grading: %w", err)
	}
	if !res.Gradable {
		return nil, "", fmt.Errorf("the grader could not grade it: %s", res.Problem)
	}
	return res, "", nil
}

// gradeStarter is the grade of the starter after the first parts parts,
// once it is done (see startGrades).
func gradeStarter(t *testing.T, l language, parts int) *grading.Result {
	t.Helper()
	startGrades()
	g := grades[stageKey{l.name, parts}]
	if g == nil {
		t.Fatalf("the %s starter after %d part(s) is not among the grades started (in -short mode only the starters as shipped are graded)", l.name, parts)
	}
	<-g.done
	if g.skip != "" {
		t.Skip(g.skip)
	}
	if g.err != nil {
		t.Fatalf("the %s starter after %d part(s): %v", l.name, parts, g.err)
	}
	return g.res
}
