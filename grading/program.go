package grading

import "context"

// programLesson is a lesson as LoadLesson returns it: the kind's own
// lesson, which stamps every result it grades with what the student wrote
// (Kind.Program), so that no report has to guess it from a lesson number.
type programLesson struct {
	Lesson
	program string
}

// Grade grades as the kind's lesson does, and sets the result's Program.
func (l programLesson) Grade(ctx context.Context, opts Options) (*Result, error) {
	res, err := l.Lesson.Grade(ctx, opts)
	if res != nil {
		res.Program = l.program
	}
	return res, err
}

// ProgramOf is what a student writes for lesson l, in a word ("server",
// "client"): its kind's Program, or "" for a lesson LoadLesson did not
// load.
func ProgramOf(l Lesson) string {
	if p, ok := l.(programLesson); ok {
		return p.program
	}
	return ""
}

// kindsOwn is the kind's own lesson inside l, as the kind's Load made it.
func kindsOwn(l Lesson) Lesson {
	if p, ok := l.(programLesson); ok {
		return p.Lesson
	}
	return l
}
