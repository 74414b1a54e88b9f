package clientlesson

import (
	"fmt"

	"github.com/mcplab/mcplab/lessons"
)

// CheckManifest says what a client lesson's manifest needs beyond what
// every manifest has: the servers its scenarios play, in a servers: line,
// and its reference client, in a client: line; each one the lab has, when
// the kind knows its servers and clients.
func (k Kind) CheckManifest(m *lessons.Manifest) error {
	switch {
	case len(m.Servers) == 0:
		return lessons.MissingLine("servers")
	case m.Client == "":
		return lessons.MissingLine("client")
	}
	if k.Servers != nil {
		for _, name := range m.Servers {
			if _, err := k.Servers(name); err != nil {
				return fmt.Errorf("the servers: line: %w", err)
			}
		}
	}
	if k.Clients != nil {
		if err := k.Clients(m.Client); err != nil {
			return fmt.Errorf("the client: line: %w", err)
		}
	}
	return nil
}
