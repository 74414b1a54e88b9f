// Package testkit holds what the project's tests share: the skip-or-fail
// rule of the container tests, the setting testcontainers needs before its
// first use, the reader of lesson 1's table of odd inputs, the build of a
// test binary, and small fixtures (a folder every user may read, a named
// pipe, a busy core, a dead address, a listener that counts). Only tests
// import it, and it imports nothing of the project's, so that a test of any
// layer may (the container sandbox's helper, which needs the grader, is in
// testkit/containers).
package testkit

import (
	"os"
	"testing"
)

// SkipContainerTests skips t when container tests are off on purpose:
// MCPLAB_DOCKER_TESTS=off, or -short (why says what -short leaves out, as
// "container tests skipped" or more).
func SkipContainerTests(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("MCPLAB_DOCKER_TESTS") == "off" {
		t.Skip("MCPLAB_DOCKER_TESTS=off: container tests skipped on purpose")
	}
	if testing.Short() {
		t.Skip("-short: " + why)
	}
}

// Unavailable says a container test cannot run: it fails t when
// MCPLAB_REQUIRE_DOCKER=1 says the engine must be there (CI), with
// required, and skips it otherwise, with skipped.
func Unavailable(t testing.TB, required, skipped string) {
	t.Helper()
	if os.Getenv("MCPLAB_REQUIRE_DOCKER") == "1" {
		t.Fatal(required)
	}
	t.Skip(skipped)
}

// NoRyuk turns testcontainers' Ryuk reaper off unless the environment
// already says: its image must be pulled from a registry, and every
// container of the tests is removed by what made it. A TestMain calls it
// first, as testcontainers reads the setting on first use.
func NoRyuk() error {
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); set {
		return nil
	}
	return os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
}
