package serverlesson_test

import (
	"reflect"
	"testing"

	"github.com/mcplab/mcplab/grading"
	"github.com/mcplab/mcplab/lab/proc"
)

// TestResultCarriesAssertedOrders: the result of a grade holds every order
// of answers the lesson's scenarios assert (lesson 1 asserts one, in
// 03-concurrent), for the report to mark on the timeline.
func TestResultCarriesAssertedOrders(t *testing.T) {
	t.Parallel()
	res := grade(t, proc.Command{Path: bin(t, "lab"), Args: []string{"serve", "reader"}}, grading.Options{})
	want := []grading.AssertedOrder{{Scenario: "03-concurrent", First: "2", Then: "1", Checks: []string{"order.concurrent"}}}
	if !reflect.DeepEqual(res.Orders, want) {
		t.Errorf("the result's asserted orders are %+v, want %+v", res.Orders, want)
	}
}
