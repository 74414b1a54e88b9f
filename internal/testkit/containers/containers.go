// Package containers holds the test helper that gives a test the
// container sandbox, or skips it (fails it under MCPLAB_REQUIRE_DOCKER=1)
// when the sandbox cannot run. Only tests import it.
package containers

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcplab/mcplab/grading/sandbox"
	"github.com/mcplab/mcplab/internal/testkit"
)

// Sandbox returns a container sandbox, closed when t ends, or
// skips t when the container sandbox cannot run (fails it with
// MCPLAB_REQUIRE_DOCKER=1).
func Sandbox(t testing.TB) *sandbox.Container {
	t.Helper()
	testkit.SkipContainerTests(t, "container tests skipped")
	c, err := sandbox.NewContainer(context.Background(), "")
	if err != nil {
		testkit.Unavailable(t, fmt.Sprintf("MCPLAB_REQUIRE_DOCKER=1, but: %v", err),
			fmt.Sprintf("container sandbox unavailable (start an engine with docker/engine.sh and build the image with docker/runner-image.sh): %v", err))
	}
	t.Cleanup(func() { c.Close() })
	return c
}
