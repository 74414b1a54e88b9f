package clientlesson

import (
	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientplay"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lessons"
)

// Player is how lab run plays a client lesson: the lab plays the servers
// of the lesson's scenario (or the file named) for COMMAND, or the
// reference client its manifest names, and shows every byte between them.
func (k Kind) Player(m *lessons.Manifest) play.Player {
	return clientplay.Player{Source: grading.RunSource(m), Client: m.Client, Folder: m.Folder, Servers: k.Servers}
}
