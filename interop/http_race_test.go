//go:build race

package interop_test

// raceBuild is true when the tests run under the race detector; the lab
// they build for the conformance run is then built with it too, so a race
// in the server under the suite's traffic fails the run (exit status 66).
const raceBuild = true
