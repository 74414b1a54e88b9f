package kinds

import (
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lessons"
)

// Player is how lab run plays lesson m, as its kind says (see
// grading.Kind's Player).
func Player(m *lessons.Manifest) (play.Player, error) {
	k := Builtin()
	kind, ok := k.Lookup(m.Subject)
	if !ok {
		return nil, fmt.Errorf("lesson %d: subject %q: the lab knows no lesson of that kind (it knows %s)", m.Number, m.Subject, strings.Join(k.Names(), ", "))
	}
	return kind.Player(m), nil
}
