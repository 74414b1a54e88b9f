package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/rig"
)

// relayCmd joins a client under test to the servers `lab grade` plays for
// it. Two forms, both started by the grader, not by people:
//
//	lab relay SOCKET
//	    a stdio server: the configuration the grader hands the client
//	    names this as the server's command;
//	lab relay [--report SOCKET] --bridge ADDR=SOCKET [--bridge ...] -- COMMAND [ARGS...]
//	    runs the client in a sandbox's network, where ADDR (the HTTP
//	    server's loopback address) forwards to the grader's SOCKET, and
//	    reports what the client left running on the report SOCKET (which
//	    it reaches before it starts the client, and where it answers the
//	    grader's pings while the client runs).
func relayCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("relay", "relay SOCKET, or lab relay [--report SOCKET] --bridge ADDR=SOCKET... -- COMMAND...", e.stderr)
	var pairs []rig.BridgePair
	fs.Func("bridge", "ADDR=SOCKET: listen at ADDR and forward to SOCKET (repeatable)", func(v string) error {
		addr, sock, ok := strings.Cut(v, "=")
		if !ok || addr == "" || sock == "" {
			return fmt.Errorf("want ADDR=SOCKET, got %q", v)
		}
		pairs = append(pairs, rig.BridgePair{Addr: addr, Socket: sock})
		return nil
	})
	report := fs.String("report", "", "with --bridge: the grader's SOCKET for the bridge's report (what the client left running)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(pairs) > 0 || *report != "" || (len(args) > 0 && args[0] == "--") {
		if len(rest) == 0 {
			return exitCannot, usagef("lab relay --bridge needs the command to run after --")
		}
		code, err := rig.BridgeReport(ctx, pairs, *report, rest, e.stdin, e.stdout, e.stderr)
		if err != nil {
			return exitCannot, err
		}
		return code, nil
	}
	if len(rest) != 1 {
		return exitCannot, usagef("lab relay takes one socket path; the grader writes it into the configuration it gives your client")
	}
	if err := rig.Relay(ctx, rest[0], e.stdin, e.stdout); err != nil {
		return exitCannot, err
	}
	return exitOK, nil
}

// relayOnly runs a relay-only copy of the lab (see rig.CopyRelayOnly): the
// relay command, and for anything else a refusal that says why.
func relayOnly(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] != "relay" {
		what := "no command"
		if len(args) > 0 {
			what = fmt.Sprintf("%q", args[0])
		}
		fmt.Fprintf(e.stderr, "lab: refused %s: %s\n", what, rig.RelayOnlyRefusal)
		return exitCannot
	}
	return dispatch(ctx, e, args)
}
