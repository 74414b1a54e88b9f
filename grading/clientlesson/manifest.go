package clientlesson

import "github.com/mcplab/mcplab/lessons"

// CheckManifest says what a client lesson's manifest needs beyond what
// every manifest has: the servers its scenarios play, in a servers: line,
// and its reference client, in a client: line.
func (Kind) CheckManifest(m *lessons.Manifest) error {
	switch {
	case len(m.Servers) == 0:
		return lessons.MissingLine("servers")
	case m.Client == "":
		return lessons.MissingLine("client")
	}
	return nil
}
