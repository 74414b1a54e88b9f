package grading

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/mcplab/mcplab/lessons"
)

// LessonBase is what every kind's loaded lesson holds: its manifest and
// its checks. A kind's Lesson embeds it for Manifest and Checks.
type LessonBase struct {
	manifest *lessons.Manifest
	checks   []Check
}

// NewLessonBase is the base of a lesson with manifest m and checks.
func NewLessonBase(m *lessons.Manifest, checks []Check) LessonBase {
	return LessonBase{manifest: m, checks: checks}
}

// Manifest is the lesson's manifest.
func (b LessonBase) Manifest() *lessons.Manifest { return b.manifest }

// Checks is the lesson's check catalogue, in its order.
func (b LessonBase) Checks() []Check { return b.checks }

// LoadKind loads lesson number, from dir when it is set, with kind alone,
// as the kind's own lesson type L (see LoadLesson): a lesson of another
// kind is refused.
func LoadKind[L Lesson](kind Kind, number int, dir fs.FS) (L, error) {
	var none L
	l, err := LoadLesson(NewKinds(kind), number, dir)
	if err != nil {
		return none, err
	}
	typed, ok := kindsOwn(l).(L)
	if !ok {
		return none, fmt.Errorf("lesson %d: the %s kind loaded a %T, not a %T", number, kind.Name(), l, none)
	}
	return typed, nil
}

// GradeKind loads the lesson opts name with kind alone and grades
// opts.Student against it (see Lesson.Grade).
func GradeKind(ctx context.Context, kind Kind, opts Options) (*Result, error) {
	l, err := LoadLesson(NewKinds(kind), opts.Lesson, opts.LessonDir)
	if err != nil {
		return nil, err
	}
	return l.Grade(ctx, opts)
}

// ReadScenarios reads lesson m's grading scenario files (see
// lessons.Manifest.GradingScenarios) from root with parse, each named by
// its file's base name without .txtar, and hands each to check, with its
// file, as soon as it is read; a lesson with none is refused.
func ReadScenarios[S any](m *lessons.Manifest, root fs.FS, files []string, parse func(name string, data []byte) (S, error), check func(file string, sc S) error) ([]S, error) {
	var out []S
	for _, f := range files {
		data, err := fs.ReadFile(root, f)
		if err != nil {
			return nil, fmt.Errorf("lesson %d: %w", m.Number, err)
		}
		sc, err := parse(strings.TrimSuffix(path.Base(f), ".txtar"), data)
		if err != nil {
			return nil, fmt.Errorf("lesson %d: %w", m.Number, err)
		}
		if err := check(f, sc); err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("lesson %d has no grading scenarios", m.Number)
	}
	return out, nil
}
