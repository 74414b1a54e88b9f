//go:build !race

package interop_test

// raceBuild is true when the tests run under the race detector.
const raceBuild = false
