package kinds

import (
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lessons"
)

// Player is how lab run plays lesson m, as its kind says (see
// grading.Kind's Player).
func Player(m *lessons.Manifest) (play.Player, error) {
	kind, err := For(m)
	if err != nil {
		return nil, err
	}
	return kind.Player(m), nil
}
