package class

import (
	"strings"
	"syscall"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/event"
	"github.com/mcplab/mcplab/lab/proc"
)

// explainExec adds to a could-not-start result why the exec of the run
// program itself failed, when the sandbox's init said so on stderr (the
// container sandbox's init writes "exec PATH failed: No such file or
// directory" and exits 127 for a script whose interpreter is missing):
// the grader reads run's first line, bounded, to name the interpreter.
// Other results are returned as they are.
func explainExec(res *grading.Result, run string) *grading.Result {
	if res == nil || res.Gradable || res.Outcome.Kind != grading.OutcomeCouldNotStart {
		return res
	}
	mark := "exec " + run + " failed: "
	for _, ev := range res.Transcript {
		if ev.Kind != event.Stderr || !strings.Contains(ev.Text, mark) {
			continue
		}
		var errno syscall.Errno
		switch {
		case strings.Contains(ev.Text, mark+"No such file or directory"):
			errno = syscall.ENOENT
		case strings.Contains(ev.Text, mark+"Exec format error"):
			errno = syscall.ENOEXEC
		default:
			return res
		}
		if why := proc.ExplainExec(run, errno); why != "" {
			res.Problem = strings.TrimSuffix(why, ".") + " (in the sandbox). " + res.Problem
			res.Outcome.Detail = res.Problem
		}
		return res
	}
	return res
}
