package serverlesson

import (
	"fmt"

	"github.com/mcplab/mcplab/lessons"
)

// CheckManifest says what a server lesson's manifest needs beyond what
// every manifest has: the reference server it names, in a server: line,
// one the lab has when the kind knows its servers.
func (k Kind) CheckManifest(m *lessons.Manifest) error {
	if m.Server == "" {
		return lessons.MissingLine("server")
	}
	if k.Servers != nil {
		if err := k.Servers(m.Server); err != nil {
			return fmt.Errorf("the server: line: %w", err)
		}
	}
	return nil
}
