package grading

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lessons"
)

// A Kind is a kind of lesson, named by a manifest's "subject:" line: it
// knows how such a lesson's grading scenarios read, how to play them
// against a student's program, and how to judge what happened. The lab's
// kinds are "server" (grading/serverlesson) and "client"
// (grading/clientlesson); internal/kinds names them.
type Kind interface {
	// Name is the subject a manifest names the kind by.
	Name() string
	// Program is what a student writes for a lesson of the kind, in a
	// word: "server" or "client" for the lab's kinds.
	Program() string
	// CheckManifest says what a manifest of the kind needs beyond what
	// every manifest has (lessons.ParseManifest checks that): the error
	// of one without a line it needs is lessons.MissingLine's.
	CheckManifest(m *lessons.Manifest) error
	// Setup is how a program in lang, one of lessons.StarterLanguages, is
	// built and started in the repository lab assignment writes.
	Setup(lang string) Setup
	// Load reads a lesson of this kind: its manifest m, the folder base
	// inside fsys that holds its files, and its check catalogue, already
	// parsed. It reads and checks the grading scenarios.
	Load(m *lessons.Manifest, fsys fs.FS, base string, checks []Check) (Lesson, error)
	// Player is how lab run plays lesson m's scenario and shows it (see
	// lab/play): a kind's player imports no grader.
	Player(m *lessons.Manifest) play.Player
}

// A Lesson is a lesson loaded by its kind, ready to grade.
type Lesson interface {
	// Manifest is the lesson's manifest.
	Manifest() *lessons.Manifest
	// Checks is the lesson's check catalogue, in its order.
	Checks() []Check
	// Grade plays the lesson's grading scenarios against opts.Student and
	// judges every check. The error is for the lab's own failures (a
	// cancelled ctx, a broken lesson); a program that cannot be started
	// gives a Result with Gradable false.
	Grade(ctx context.Context, opts Options) (*Result, error)
	// Budget is the longest one grade of the lesson can take at time scale
	// 1 when every deadline of every scenario runs out, with sweeps more
	// runs of the chunk sweep and startCost to start each program.
	Budget(sweeps int, startCost time.Duration) time.Duration
	// Designed is about how long a correct program takes to be graded on
	// a machine at normal speed, startCost to start each program included;
	// calibration compares the reference program's time with it.
	Designed(startCost time.Duration) time.Duration
	// Reference is the command of the lesson's reference program, which
	// gets full marks, started through the lab binary lab. lessonDir is
	// the folder on disk of a lesson read from one (a teacher's
	// --lesson-dir, with a manifest of its own), "" for a built-in lesson:
	// a reference that serves the lesson's own data is given it.
	Reference(lab, lessonDir string) []string
}

// Kinds is a set of lesson kinds by name, as http.ServeMux is a set of
// handlers by pattern. The zero value is empty and ready to use.
type Kinds struct {
	byName map[string]Kind
}

// NewKinds returns the set of the kinds given.
func NewKinds(ks ...Kind) *Kinds {
	k := &Kinds{}
	for _, kind := range ks {
		k.Register(kind)
	}
	return k
}

// Register adds a kind. It panics when a kind of that name is already
// registered, or the name is empty: both are the lab's own mistakes.
func (k *Kinds) Register(kind Kind) {
	name := kind.Name()
	if name == "" {
		panic("grading: a lesson kind with no name")
	}
	if _, dup := k.byName[name]; dup {
		panic(fmt.Sprintf("grading: lesson kind %q registered twice", name))
	}
	if k.byName == nil {
		k.byName = map[string]Kind{}
	}
	k.byName[name] = kind
}

// Lookup returns the kind a manifest's subject names.
func (k *Kinds) Lookup(subject string) (Kind, bool) {
	if k == nil {
		return nil, false
	}
	kind, ok := k.byName[subject]
	return kind, ok
}

// Names lists the kinds' names, sorted.
func (k *Kinds) Names() []string {
	var out []string
	if k != nil {
		for n := range k.byName {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// For returns the kind lesson m's subject names, once the kind has
// checked that m has the lines it needs (Kind.CheckManifest). The error
// lists the kinds there are, or names the manifest's file and the line it
// lacks, as a manifest's own errors do.
func (k *Kinds) For(m *lessons.Manifest) (Kind, error) {
	kind, ok := k.Lookup(m.Subject)
	if !ok {
		return nil, fmt.Errorf("lesson %d: subject %q: the lab knows no lesson of that kind (it knows %s)", m.Number, m.Subject, strings.Join(k.Names(), ", "))
	}
	if err := kind.CheckManifest(m); err != nil {
		return nil, fmt.Errorf("%s: %w", path.Join(m.Dir, lessons.ManifestFile), err)
	}
	return kind, nil
}

// LoadLesson reads a lesson through its manifest, from dir when it is set
// (a lesson folder on disk; without a manifest of its own it uses the
// built-in lesson's), else from the lessons built into the lab; then the
// kind its subject names reads the rest. Each result the lesson grades
// says what its student wrote (Result.Program, the kind's Program).
func LoadLesson(kinds *Kinds, number int, dir fs.FS) (Lesson, error) {
	if number == 0 {
		number = 1
	}
	m, root, base, err := lessonManifest(number, dir)
	if err != nil {
		return nil, err
	}
	kind, err := kinds.For(m)
	if err != nil {
		return nil, err
	}
	checksData, err := fs.ReadFile(root, path.Join(base, m.Checks))
	if err != nil {
		return nil, fmt.Errorf("lesson %d: reading the checks: %w", number, err)
	}
	checks, err := ParseChecks(checksData)
	if err != nil {
		return nil, fmt.Errorf("lesson %d: %s: %w", number, m.Checks, err)
	}
	l, err := kind.Load(m, root, base, checks)
	if err != nil {
		return nil, err
	}
	return programLesson{Lesson: l, program: kind.Program()}, nil
}

// lessonManifest finds lesson number's manifest, and the folder base in
// root that holds its files.
func lessonManifest(number int, dir fs.FS) (m *lessons.Manifest, root fs.FS, base string, err error) {
	root, base = dir, "."
	if dir != nil {
		// Only a manifest that is not there at all means "built-in lesson
		// number": one that is there but refused (a link out of the
		// folder, a FIFO) is an error that names it.
		if _, err := fs.Stat(dir, lessons.ManifestFile); !errors.Is(err, fs.ErrNotExist) {
			if m, err = lessons.ReadManifest(dir, "."); err != nil {
				return nil, nil, "", err
			}
			if m.Number != number {
				return nil, nil, "", fmt.Errorf("the lesson folder is lesson %d, not lesson %d (its %s says so)", m.Number, number, lessons.ManifestFile)
			}
			return m, root, base, nil
		}
	}
	m, err = lessons.Get(number)
	if err != nil {
		return nil, nil, "", err
	}
	if dir == nil {
		root, base = lessons.FS(), m.Dir
	}
	return m, root, base, nil
}

// Grade loads the lesson opts name with opts.Kinds and grades opts.Student
// against it (see Lesson.Grade). A verdict that rests on deadlines alone is
// confirmed by one more run at a larger time scale before it is charged
// (see Confirm), so a slow machine costs no points.
func Grade(ctx context.Context, opts Options) (*Result, error) {
	lesson, err := LoadLesson(opts.Kinds, opts.Lesson, opts.LessonDir)
	if err != nil {
		return nil, err
	}
	res, err := lesson.Grade(ctx, opts)
	if err != nil {
		return nil, err
	}
	return Confirm(ctx, lesson, opts, res)
}
