package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/mcp"
	"github.com/mcplab/mcplab/lab/mcpserver"
	"github.com/mcplab/mcplab/lab/txtar"
)

// answerServers are the servers a wire-answer case may name in its
// "server" section; a case without one is played against newServer.
var answerServers = map[string]func() *mcpserver.Server{
	"test": newServer,
	// modern-only speaks 2026-07-28 alone: initialize is not one of its
	// methods.
	"modern-only": func() *mcpserver.Server {
		s := newServer()
		s.LegacyVersions = nil
		return s
	},
	"methods": methodsServer,
	// no-tools is given nothing: no tools, no methods.
	"no-tools": func() *mcpserver.Server {
		return &mcpserver.Server{Info: mcp.Implementation{Name: "empty", Version: "1"}}
	},
	// max-line-200 reads lines of at most 200 bytes.
	"max-line-200": func() *mcpserver.Server {
		s := newServer()
		s.MaxLine = 200
		return s
	},
}

// methodsServer is newServer with two methods of its own: resources/list,
// answering an empty list, and x/empty, answering an empty result.
func methodsServer() *mcpserver.Server {
	s := newServer()
	s.HandleMethod("resources/list", mcpserver.MethodFunc(func(context.Context, *mcpserver.Request) (any, error) {
		return map[string]any{"resources": []any{}}, nil
	}))
	s.HandleMethod("x/empty", mcpserver.MethodFunc(func(context.Context, *mcpserver.Request) (any, error) {
		return struct{}{}, nil
	}))
	return s
}

// answerCase is one file of testdata/answers: its comment says what it
// shows; "requests" holds the lines sent on stdin, "answers" the exact
// bytes the server must write on stdout, "server" (optional) names one of
// answerServers, "log" (optional) a line its log must hold, and
// "schema-off" (optional) says why its answers are not held to the
// official schema.
type answerCase struct {
	server, requests, answers, log string
	schemaOff                      bool
}

func readAnswerCase(path string) (answerCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return answerCase{}, err
	}
	files, err := txtar.Files(data)
	if err != nil {
		return answerCase{}, err
	}
	c := answerCase{server: "test"}
	seen := map[string]bool{}
	for _, f := range files {
		switch f.Name {
		case "server":
			c.server = strings.TrimSpace(string(f.Data))
		case "requests":
			c.requests = string(f.Data)
		case "answers":
			c.answers = string(f.Data)
		case "log":
			c.log = strings.TrimSuffix(string(f.Data), "\n")
		case "schema-off":
			c.schemaOff = strings.TrimSpace(string(f.Data)) != ""
		default:
			return answerCase{}, fmt.Errorf("line %d: unknown section %q (want server, requests, answers, log, schema-off)", f.Line, f.Name)
		}
		seen[f.Name] = true
	}
	if !seen["requests"] || !seen["answers"] {
		return answerCase{}, errors.New(`a case needs a "requests" and an "answers" section`)
	}
	if seen["schema-off"] && !c.schemaOff {
		return answerCase{}, errors.New(`a "schema-off" section must say why`)
	}
	return c, nil
}

// TestWireAnswers plays each case of testdata/answers against its server
// and holds what the server writes to the case's exact bytes, then
// (unless the case says why not) validates every answer against the
// official schema, in a session with the requests, as lab validate does.
func TestWireAnswers(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "answers", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases in testdata/answers (%v)", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			c, err := readAnswerCase(path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			newS, ok := answerServers[c.server]
			if !ok {
				t.Fatalf("%s: no server %q in answerServers", path, c.server)
			}
			requests := strings.Split(strings.TrimSuffix(c.requests, "\n"), "\n")
			out, log := serve(t, newS(), requests...)
			if out != c.answers {
				t.Errorf("sent\n%sgot\n%swant\n%s", c.requests, out, c.answers)
			}
			if c.log != "" && !strings.Contains(log, c.log) {
				t.Errorf("the server's log does not hold %q:\n%s", c.log, log)
			}
			if !c.schemaOff {
				checkSchema(t, requests, out)
			}
		})
	}
}
