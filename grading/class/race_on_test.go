//go:build race

package class_test

// raceDetector is true in a test binary built with -race, whose memory the
// race detector's shadow multiplies (5 to 10 times, as its documentation
// says).
const raceDetector = true
