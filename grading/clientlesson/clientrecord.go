package clientlesson

import (
	"fmt"
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/clientplay"
	"github.com/mcplab/mcplab/lab/proc"
	"github.com/mcplab/mcplab/lab/rig"
)

// clientRun is one client scenario as the judges read it: what the player
// recorded (lab/clientplay), and what the grader made of the bridge's
// report: what the client left running, and why the grader could not see
// it.
type clientRun struct {
	*clientplay.Record
	// leftRunning is the bridge's report of servers the client left
	// running when it exited (in a sandbox, which then ends them).
	leftRunning string
	// watcher, when set, says why the grader could not see what the
	// client left running: its bridge ended without a report, or stopped
	// answering, and neither the grader nor the sandbox had ended it.
	watcher string
}

// judgedRun reads a scenario's record for the judges.
func judgedRun(rec *clientplay.Record) *clientRun {
	run := &clientRun{Record: rec}
	if rec.Silent > 0 {
		run.watcher = fmt.Sprintf("%s answered nothing when the grader asked it, %s after the client's stdin closed (it had been stopped, as SIGSTOP does), so the grader could not see what the client left running", bridgeName, rec.Silent.Round(time.Second))
	}
	if !rec.Bridged || rec.StartErr != nil {
		return run
	}
	left, watcher := bridgeVerdict(rec.Report, rec.Exit, rec.Killed == "" && rec.Exit.Reason == "" && !rec.Cancelled)
	run.leftRunning = left
	if run.watcher == "" {
		run.watcher = watcher
	}
	return run
}

// answerLine is the answer as an answer test reads it.
func answerLine(a *clientplay.Answer) grading.AnswerLine {
	return grading.AnswerLine{Text: a.Text, Value: a.Value, Size: a.Size, Cut: a.Cut, Dropped: a.Dropped}
}

// bridgeName is how a student's report names the bridge.
const bridgeName = "the bridge that runs the client (its parent process: the grader's watcher of what the client leaves running)"

// watcherExpected is what a client does about its bridge, and how to fix
// one that ended or stopped it.
const watcherExpected = "the client's parent process left alone until the client exits: a client ends only the processes it started (its stdio servers); do not kill or stop your parent (no kill of $PPID or getppid(), no SIGSTOP)"

// bridgeVerdict says, from the bridge's report, what the client left
// running when it exited (empty when nothing), and why the grader could
// not see it (empty when it could). A bridge that connected but ended
// without a report, when neither the grader nor the sandbox ended it
// (ended says they did not), was ended by the client, which then cannot
// say it left nothing behind; exit is how the bridge ended.
func bridgeVerdict(rep rig.Report, exit proc.Exit, ended bool) (left, watcher string) {
	switch {
	case rep.Reported && rep.LeftRunning > 0:
		return fmt.Sprintf("%d %s", rep.LeftRunning, rig.LeftRunningText(rep.LeftRunning)), ""
	case rep.Reported:
		return "", ""
	case rep.Problem != "":
		return "", bridgeName + " sent a report the grader could not read (" + rep.Problem + "), so the grader could not see what the client left running"
	case rep.Connected && ended:
		return "", fmt.Sprintf("%s %s before it could report, so the grader could not see what the client left running: its watcher was ended, and not by the grader or the sandbox", bridgeName, exit)
	}
	return "", ""
}
