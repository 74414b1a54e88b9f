package class

import (
	"io/fs"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/internal/kinds"
)

// lessonKinds is the set of lesson kinds o grades with: o.Kinds, or the
// lab's own (internal/kinds).
func (o Options) lessonKinds() *grading.Kinds {
	if o.Kinds != nil {
		return o.Kinds
	}
	return kinds.Builtin()
}

// loadLesson loads lesson number, from lessonDir when it is set, with the
// lab's own lesson kinds.
func loadLesson(number int, lessonDir fs.FS) (grading.Lesson, error) {
	return grading.LoadLesson(kinds.Builtin(), number, lessonDir)
}
