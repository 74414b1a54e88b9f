package kinds

import (
	"io/fs"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lessons"
)

// For returns the lab's kind of lesson m, once it has checked that m has
// the lines such a lesson needs (see grading.Kinds.For).
func For(m *lessons.Manifest) (grading.Kind, error) {
	return Builtin().For(m)
}

// Find returns the manifest of lesson n, from the lesson folder dir when
// it is set (see lessons.Find), once its kind has checked that it has the
// lines it needs: a command that finds its lesson through Find refuses a
// broken manifest before it does anything else.
func Find(n int, dir fs.FS) (*lessons.Manifest, error) {
	m, err := lessons.Find(n, dir)
	if err != nil {
		return nil, err
	}
	if _, err := For(m); err != nil {
		return nil, err
	}
	return m, nil
}
