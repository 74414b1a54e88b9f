package grading

import "strings"

// Setup is how a student's program in one language is built and started
// in the repository lab assignment writes: the bodies of its build and run
// scripts, and what its README says of them.
type Setup struct {
	// Build is the build script's body, "" for a language with no build
	// step.
	Build string
	// Run is the run script's body: it starts the program the way the
	// grader starts it.
	Run string
	// Needs is what the program needs, for the README: "Go", "Python 3".
	Needs string
	// Main is the file the student edits, which the starter must have.
	Main string
	// RunNote is the README's sentence of what run does, without its full
	// stop, such as "`run` starts your server on stdio, the way the grader
	// starts it".
	RunNote string
}

// GoBuild is a Go starter's build script: it compiles the program into
// $LAB_WORK, under the name program ("server", "client").
func GoBuild(program string) string {
	return strings.ReplaceAll(`# Build step, run once before grading: compile the PROGRAM into $LAB_WORK.
set -eu
: "${LAB_WORK:?LAB_WORK must name a folder to build the PROGRAM into}"
cd "$(dirname "$0")"
exec go build -o "$LAB_WORK/PROGRAM" .
`, "PROGRAM", program)
}
