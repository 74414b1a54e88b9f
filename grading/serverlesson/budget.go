package serverlesson

import (
	"time"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
	"github.com/mcplab/mcplab/lab/stdioprobe"
)

// ScenarioBudget is the longest a server scenario's deadlines let its run
// last under the time scale (0 means 1): the wait for readiness, its
// schedule, every await's deadline, the wait for the exit and for the last
// output. A correct server takes about the schedule alone.
func ScenarioBudget(sc *scenario.Scenario, scale float64) time.Duration {
	var waits, schedule time.Duration
	for _, st := range sc.Steps {
		waits += st.Within
		if st.Kind == scenario.StepSend || st.Kind == scenario.StepClose {
			schedule = max(schedule, st.At)
		}
	}
	return schedule + grading.ScaleBy(stdioprobe.ReadyDeadline+waits+stdioprobe.ExitDeadline+stdioprobe.DrainDeadline, scale)
}

// probeBudget is the longest the readiness probe's run may last.
func probeBudget(scale float64) time.Duration {
	return grading.ScaleBy(stdioprobe.ReadyDeadline+stdioprobe.KillDeadline+stdioprobe.DrainDeadline, scale)
}
