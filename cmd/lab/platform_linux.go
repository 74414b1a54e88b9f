package main

// classGradingSupported says why lab grade-class cannot run on this system,
// or nil: on Linux it can.
func classGradingSupported() error { return nil }
