package class

import (
	"errors"

	"github.com/mcplab/mcplab/grading"
)

// loadLesson loads the lesson o names (o.Lesson, from o.LessonDir when it
// is set) with o.Kinds, the lesson kinds the caller grades with (the lab's
// own are internal/kinds.Builtin's: this package names none).
func (o Options) loadLesson() (grading.Lesson, error) {
	if o.Kinds == nil {
		return nil, errors.New("class: no lesson kinds to load the lesson with (Options.Kinds is nil)")
	}
	return grading.LoadLesson(o.Kinds, o.Lesson, o.LessonDir)
}
