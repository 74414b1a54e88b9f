package main

import (
	"context"

	"github.com/mcplab/mcplab/lab/rig"
)

// relayCmd joins the stdio of a client under test to a server that
// `lab grade` plays for it: the configuration the grader hands the client
// starts `lab relay SOCKET` as the server's command.
func relayCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("relay", "relay SOCKET", e.stderr)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(rest) != 1 {
		return exitCannot, usagef("lab relay takes one socket path; the grader writes it into the configuration it gives your client")
	}
	if err := rig.Relay(ctx, rest[0], e.stdin, e.stdout); err != nil {
		return exitCannot, err
	}
	return exitOK, nil
}
