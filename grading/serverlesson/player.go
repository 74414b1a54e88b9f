package serverlesson

import (
	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lab/stdioprobe"
	"github.com/mcplab/mcplab/lessons"
)

// Player is how lab run plays a server lesson: the lab's scripted client
// plays the lesson's scenario (or the file named) against COMMAND, or the
// reference server its manifest names, ready as its ready line says.
func (Kind) Player(m *lessons.Manifest) play.Player {
	ready := stdioprobe.ReadinessOf(m.Ready.Kind, m.Ready.Pattern, m.Ready.Probe)
	return play.Server{Source: grading.RunSource(m), Reference: m.Server, Ready: ready}
}
