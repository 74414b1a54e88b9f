// Package httpserverlesson is the HTTP server lesson kind ("subject:
// http-server", lesson 4): the student serves MCP over Streamable HTTP,
// and the lab plays the client. For each grading scenario
// (lab/httpscenario) the grader starts two copies of the student's
// server, each with the environment variable PORT set to a free loopback
// port of its own, waits until each accepts a TCP connection on
// 127.0.0.1:PORT, and sends each exchange to the copy it names
// (lab/httpprobe), so that a server that keeps state between requests
// shows it on the wire. Each expect line charges the one check it is
// tagged with; the event-stream judge charges malformed streams; a line
// that needs what an earlier fault took away is not judged.
package httpserverlesson

import (
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/httpscenario"
	"github.com/mcplab/mcplab/lab/play"
	"github.com/mcplab/mcplab/lessons"
)

// Kind is the HTTP server lesson kind.
type Kind struct {
	// Servers, when set, says whether the lab has the reference server a
	// manifest's server: line names: nil, or an error that says which
	// servers it has (internal/kinds sets it from internal/servers).
	Servers func(name string) error
}

// Name is the subject that names the kind.
func (Kind) Name() string { return "http-server" }

// Program is what a student writes for such a lesson: a server.
func (Kind) Program() string { return "server" }

// CheckManifest says what the manifest needs beyond what every manifest
// has: the reference server, in a server: line, one the lab has.
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

// Setup is how a starter server in lang is built and started: as a stdio
// server lesson's, and the run script says the server listens on $PORT.
func (Kind) Setup(lang string) grading.Setup {
	const note = "`run` starts your server, which listens on 127.0.0.1 at the port in the environment variable PORT, the way the grader starts it"
	switch lang {
	case "go":
		return grading.Setup{
			Build: grading.GoBuild("server"),
			Run: `# Start the server ./build compiled; it listens on 127.0.0.1:$PORT.
: "${LAB_WORK:?LAB_WORK must name the folder ./build wrote the server to}"
exec "$LAB_WORK/server"
`,
			Needs: "Go", Main: "main.go", RunNote: note,
		}
	case "python":
		return grading.Setup{Run: "# Start the server; it listens on 127.0.0.1:$PORT.\nexec python3 \"$(dirname \"$0\")/server.py\"\n", Needs: "Python 3", Main: "server.py", RunNote: note}
	default:
		return grading.Setup{Run: "# Start the server; it listens on 127.0.0.1:$PORT.\nexec node \"$(dirname \"$0\")/server.js\"\n", Needs: "Node", Main: "server.js", RunNote: note}
	}
}

// Load reads the lesson's grading scenarios and checks them against the
// catalogue: every tagged check is in it, and none is a judge's.
func (Kind) Load(m *lessons.Manifest, fsys fs.FS, base string, checks []grading.Check) (grading.Lesson, error) {
	return load(m, fsys, base, checks)
}

// Player is how lab run plays the lesson's scenario (see Player).
func (Kind) Player(m *lessons.Manifest) play.Player {
	return Player{Source: grading.RunSource(m), Reference: m.Server}
}

// Lesson is an HTTP server lesson: its manifest, its scenarios, its checks.
type Lesson struct {
	grading.LessonBase
	// Scenarios are the grading scenarios, in the lesson's order.
	Scenarios []*httpscenario.Scenario
}

// ReferenceArgs are the arguments of lab serve that start the reference
// server NAME over HTTP on the port the grader gives it: lab serve reads
// $PORT in its --http address from the environment.
func ReferenceArgs(name, lessonDir string) []string {
	args := []string{"serve", name, "--http", "127.0.0.1:$PORT"}
	if lessonDir != "" {
		args = append([]string{"serve", "--lesson-dir", lessonDir}, args[1:]...)
	}
	return args
}

// Reference is the reference server, as lab serve NAME --http starts it;
// for a lesson read from the folder lessonDir, with its data.
func (l *Lesson) Reference(lab, lessonDir string) []string {
	m := l.Manifest()
	if m.BuiltIn() {
		lessonDir = ""
	}
	return append([]string{lab}, ReferenceArgs(m.Server, lessonDir)...)
}

// Budget is the longest one grade can take at time scale 1 when every
// deadline runs out: for each scenario, two starts and ready waits (at
// most: copies still running are kept for the next scenario), each
// exchange's whole time (and the wait to see a silent copy end), each
// SIGTERM's exit wait. sweeps is not used: the kind has no chunk sweep.
func (l *Lesson) Budget(_ int, startCost time.Duration) time.Duration {
	var total time.Duration
	for _, sc := range l.Scenarios {
		total += scenarioBudget(sc, 1) + 2*startCost
	}
	return total
}

// scenarioBudget is the longest a scenario can take at a time scale.
func scenarioBudget(sc *httpscenario.Scenario, scale float64) time.Duration {
	t := timingAt(scale)
	d := 2 * t.ready
	for _, ex := range sc.Exchanges {
		if ex.Terminate {
			d += t.exit
		} else {
			d += t.bound.Total + t.gone
		}
	}
	return d
}

// Designed is about how long a correct server takes to be graded: two
// starts, two more after each scenario that ends the copies with SIGTERM
// (but the last), and a few milliseconds an exchange.
func (l *Lesson) Designed(startCost time.Duration) time.Duration {
	total := 2 * startCost
	for i, sc := range l.Scenarios {
		for _, ex := range sc.Exchanges {
			total += 5 * time.Millisecond
			if ex.Terminate && i < len(l.Scenarios)-1 {
				total += startCost
			}
		}
	}
	return total
}

// Grade plays every scenario against two copies of opts.Student and
// judges each check.
func (l *Lesson) Grade(ctx context.Context, opts grading.Options) (*grading.Result, error) {
	if opts.Student == nil {
		return nil, fmt.Errorf("no server to grade")
	}
	return grade(ctx, l, opts, time.Now())
}
