package grading

import (
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lessons"
)

// RunSource is where lab run finds lesson m's scenario: its run: line,
// read from the lesson's files (see play.Source); a kind's Player starts
// from it.
func RunSource(m *lessons.Manifest) play.Source {
	return play.Source{Lesson: m.Number, Run: m.Run, Read: m.Read}
}
