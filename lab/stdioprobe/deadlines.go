package stdioprobe

import "time"

// The scripted client's deadlines at time scale 1; Options.TimeScale
// multiplies each. None of them is judged by itself: each ends as soon as
// what it waits for has happened, so a correct server never waits one out.
// A grader sums them to bound how long a scenario's run can last.
const (
	// ReadyDeadline is how long a server has to show it is ready, when
	// Options.ReadyWithin is 0.
	ReadyDeadline = 3 * time.Second
	// ExitDeadline is how long a server has to exit once its stdin closed
	// while answers are still due, when Options.ExitWithin is 0; it also
	// bounds one write to its stdin.
	ExitDeadline = 5 * time.Second
	// ExitDeadlineAnswered is how long a server has to exit once its stdin
	// closed when every request sent had its answer.
	ExitDeadlineAnswered = 2 * time.Second
	// ReadDeadline is how long a server has to take a chunk it was sent,
	// and to start reading at all.
	ReadDeadline = 2 * time.Second
	// DrainDeadline is how long the last of a server's output may take
	// once it ended, before the client stops reading (a child process that
	// holds the output open).
	DrainDeadline = 2 * time.Second
	// KillDeadline is how long a server that was stopped may take to end
	// before the client gives up waiting for it.
	KillDeadline = 10 * time.Second
)
