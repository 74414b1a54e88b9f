// Command launcher is the process sandbox's launcher for the sandbox
// package's tests, built without -race like the lab binary whose
// "grade-class sandbox-exec" it stands for: a launcher built with -race needs
// far more memory than the limits it sets on itself for a moment.
package main

import (
	"os"

	"github.com/mcplab/mcplab/grading/sandbox"
)

func main() { os.Exit(sandbox.Main(os.Args[1:])) }
