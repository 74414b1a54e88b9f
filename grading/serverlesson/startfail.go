package serverlesson

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/stdioprobe"
)

// stderrTail bounds the server's own stderr lines that a could-not-start
// result shows, and each line's length.
const (
	stderrTailLines = 8
	stderrTailWidth = 240
)

// notStarted says why a played scenario shows a program that never started
// as a server, or "" when it did start. A program that exits with status
// 126 or 127 (a shell's "cannot execute" and "command not found") did not
// start; nor did one that ended by itself, before the client was done with
// it, without ever showing the readiness the lesson's manifest names or
// answering anything. Both are read from the whole record of the run, once
// every line it wrote has been read, so the verdict does not hang on
// timing: a program slow to fail on a loaded machine, which the client
// stopped waiting for and sent the scenario to, is judged the same.
//
// When the program's stderr names a file the sandbox hides from it (hides
// is the starter's proc.PathHider, or nil), the words say so and how to
// mend it: the same command works by hand, where nothing hides the file.
func notStarted(run *stdioprobe.Run, ready stdioprobe.Readiness, hides func(string) string) string {
	exitedByItself := run.Exit.Err == nil && run.Exit.Signal == "" && run.Exit.Reason == "" &&
		!run.Killed && !run.OutputCapped && run.Exit.Code >= 0
	if !exitedByItself {
		return ""
	}
	var what string
	switch code := run.Exit.Code; {
	case code == 126:
		what = "it exited with status 126, which a shell gives when the program it was asked to run exists but cannot be executed"
	case code == 127:
		what = "it exited with status 127, which a shell gives when the program it was asked to run does not exist"
	case run.EarlyExit && !ready.Shown(run) && len(run.Answers) == 0:
		what = fmt.Sprintf("it %s before it showed it was ready, without answering anything", run.Exit)
	default:
		return ""
	}
	if path, why := hiddenNamed(run, hides); path != "" {
		return fmt.Sprintf("the server did not start: in scenario %s %s (the lesson waits for %s); "+
			"so there was nothing to grade, which is not a fail. Its stderr names %s, which the grader's sandbox hides from it: %s. "+
			"Rule: a graded program reaches only its own submission folder and the class folder around it, wherever the grader runs it. "+
			"Fix: copy %s into the submission and name it from the run script's own folder (\"$(dirname \"$0\")/%s\"); "+
			"by hand the command works, because nothing hides the file there",
			run.Scenario.Name, what, ready.Describe(), path, why, filepath.Base(path), filepath.Base(path))
	}
	return fmt.Sprintf("the server did not start: in scenario %s %s (the lesson waits for %s); "+
		"so there was nothing to grade, which is not a fail. Rule: a server starts, shows it is ready, then reads stdin. "+
		"Fix: run the same command by hand (lab run -- COMMAND) and mend what its stderr says",
		run.Scenario.Name, what, ready.Describe())
}

// namedPath finds the absolute paths a line of stderr names ("bash:
// /tmp/x/server.sh: No such file or directory", "can't open file
// '/root/s.py'").
var namedPath = regexp.MustCompile(`(?:^|[\s'"(=:])(/[^\s'":,;()]+)`)

// hiddenNamed returns the first path the run's stderr names that hides
// says is hidden from the program, and why; "" and "" when there is none
// or hides is nil. At most the last stderrTailLines lines are looked at,
// the ones a could-not-start result shows.
func hiddenNamed(run *stdioprobe.Run, hides func(string) string) (path, why string) {
	if hides == nil {
		return "", ""
	}
	var lines []string
	for _, ev := range run.Events {
		if ev.Kind == event.Stderr {
			lines = append(lines, ev.Text)
		}
	}
	if n := len(lines) - stderrTailLines; n > 0 {
		lines = lines[n:]
	}
	for _, l := range lines {
		for _, m := range namedPath.FindAllStringSubmatch(l, 8) {
			p := strings.TrimRight(m[1], ".")
			if why := hides(p); why != "" {
				return p, why
			}
		}
	}
	return "", ""
}

// hiderOf is s's HidesPath when s is a proc.PathHider, else nil.
func hiderOf(s proc.Starter) func(string) string {
	if h, ok := s.(proc.PathHider); ok {
		return h.HidesPath
	}
	return nil
}

// stderrTail is the last lines the server wrote to stderr in run, each
// cut to a readable width, indented for a report; "(nothing)" when there
// were none.
func stderrTail(run *stdioprobe.Run) string {
	var lines []string
	for _, ev := range run.Events {
		if ev.Kind == event.Stderr {
			lines = append(lines, ev.Text)
		}
	}
	if len(lines) == 0 {
		return "  (nothing)"
	}
	var b strings.Builder
	if n := len(lines) - stderrTailLines; n > 0 {
		fmt.Fprintf(&b, "  (%s left out)\n", grading.CountOf(n, "earlier line", "earlier lines"))
		lines = lines[n:]
	}
	for i, l := range lines {
		if r := []rune(l); len(r) > stderrTailWidth {
			l = string(r[:stderrTailWidth]) + "…"
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("  " + l)
	}
	return b.String()
}

// couldNotStartWith is couldNotStart for a program that ran but never
// started as a server: the problem shows the last lines of its own stderr.
func couldNotStartWith(res *grading.Result, checks []grading.Check, problem string, run *stdioprobe.Run, started time.Time) *grading.Result {
	res.CouldNotStart(checks, problem, started)
	for i := range res.Checks {
		res.Checks[i].Message = "Not judged: the server did not start, so there was nothing to judge (the result's problem says why, with its stderr)."
	}
	tail := "Its last lines on stderr:\n" + stderrTail(run)
	res.Problem = upperFirst(problem) + ". " + tail
	res.Outcome.Detail = res.Problem
	return res
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
