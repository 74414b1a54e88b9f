package serverlesson

import (
	"slices"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/scenario"
)

// assertedOrders are the orders of answers the scenario asserts ("2 before
// 1"), as a Result carries them for the report's timeline.
func assertedOrders(sc *scenario.Scenario) []grading.AssertedOrder {
	var out []grading.AssertedOrder
	for _, o := range sc.Orders {
		out = append(out, grading.AssertedOrder{Scenario: sc.Name, First: string(o.First), Then: string(o.Then), Checks: slices.Clone(o.Checks)})
	}
	return out
}
