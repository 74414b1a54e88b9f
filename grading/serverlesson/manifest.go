package serverlesson

import "github.com/mcplab/mcplab/lessons"

// CheckManifest says what a server lesson's manifest needs beyond what
// every manifest has: the reference server it names, in a server: line.
func (Kind) CheckManifest(m *lessons.Manifest) error {
	if m.Server == "" {
		return lessons.MissingLine("server")
	}
	return nil
}
