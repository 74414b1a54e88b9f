// Package kinds is the one place that names the lab's lesson kinds: a
// manifest's "subject: server" is grading/serverlesson, "subject: client"
// grading/clientlesson, "subject: http-server" grading/httpserverlesson.
// A new kind of lesson is a package that implements grading.Kind, and one
// line here.
package kinds

import (
	"context"
	"io/fs"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/grading/clientlesson"
	"github.com/mcplab/mcplab/grading/httpserverlesson"
	"github.com/mcplab/mcplab/grading/serverlesson"
	"github.com/mcplab/mcplab/internal/clients"
	"github.com/mcplab/mcplab/internal/servers"
	"github.com/mcplab/mcplab/lessons"
)

// Builtin returns a new set of the lab's lesson kinds.
func Builtin() *grading.Kinds {
	return grading.NewKinds(
		serverlesson.Kind{Servers: knownServer},
		clientlesson.Kind{Servers: servers.ForRig, Clients: knownClient},
		httpserverlesson.Kind{Servers: knownServer},
	)
}

// LoadLesson loads lesson number with the lab's kinds, from dir when it
// is set (see grading.LoadLesson).
func LoadLesson(number int, dir fs.FS) (grading.Lesson, error) {
	return grading.LoadLesson(Builtin(), number, dir)
}

// Grade grades opts.Student against the lesson opts name, with the lab's
// kinds unless opts.Kinds names others (see grading.Grade).
func Grade(ctx context.Context, opts grading.Options) (*grading.Result, error) {
	if opts.Kinds == nil {
		opts.Kinds = Builtin()
	}
	return grading.Grade(ctx, opts)
}

// Program says what a student writes for the lesson m names: "server" or
// "client" (see grading.Kind).
func Program(m *lessons.Manifest) (string, error) {
	kind, err := For(m)
	if err != nil {
		return "", err
	}
	return kind.Program(), nil
}

// knownServer says whether the lab has a reference server of the name, as
// lab serve NAME finds it.
func knownServer(name string) error {
	_, err := servers.Lookup(name)
	return err
}

// knownClient says whether the lab has a reference client of the name, as
// lab client NAME finds it.
func knownClient(name string) error {
	_, err := clients.Lookup(name)
	return err
}
