package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/mcplab/mcplab/lab/rig"
	"github.com/mcplab/mcplab/lab/tunnel"
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
//	lab relay --tunnel SOCKET=ADDR -- COMMAND [ARGS...]
//	    runs a server under test in a sandbox's network, and carries each
//	    connection the grader asks for on its SOCKET to ADDR, where the
//	    server listens (see lab/tunnel); it may be given with --bridge.
func relayCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags("relay", "relay SOCKET, or lab relay [--report SOCKET] [--bridge ADDR=SOCKET...] [--tunnel SOCKET=ADDR...] -- COMMAND...", e.stderr)
	var pairs, tunnels []rig.BridgePair
	pairFlag(fs, "bridge", "ADDR=SOCKET: listen at ADDR and forward to SOCKET (repeatable)", true, &pairs)
	pairFlag(fs, "tunnel", "SOCKET=ADDR: carry the grader's connections on SOCKET to ADDR in this network (repeatable)", false, &tunnels)
	report := fs.String("report", "", "with --bridge: the grader's SOCKET for the bridge's report (what the client left running)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return exitCannot, err
	}
	if len(pairs) > 0 || len(tunnels) > 0 || *report != "" || (len(args) > 0 && args[0] == "--") {
		if len(rest) == 0 {
			return exitCannot, usagef("lab relay --bridge and --tunnel need the command to run after --")
		}
		// The bridge passes SIGTERM and SIGINT on to the command and ends
		// when it ends: the signal must not also cancel ctx, which would
		// kill the command before it could finish what it was doing (a
		// server under test is graded on ending cleanly on SIGTERM).
		ctx, stop := context.WithCancel(context.WithoutCancel(ctx))
		defer stop()
		if err := openTunnels(ctx, tunnels); err != nil {
			return exitCannot, err
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

// openTunnels connects each tunnel's bridge to the grader's socket (before
// the command starts, so that it is first there) and serves it until ctx
// ends.
func openTunnels(ctx context.Context, tunnels []rig.BridgePair) error {
	for _, t := range tunnels {
		b, err := tunnel.Open(ctx, t.Socket)
		if err != nil {
			return err
		}
		go b.Serve(ctx, t.Addr)
	}
	return nil
}

// pairFlag defines the repeatable flag name, whose values are an address
// and a socket joined by "=" (the address first when addrFirst), each
// added to into.
func pairFlag(fs *flag.FlagSet, name, usage string, addrFirst bool, into *[]rig.BridgePair) {
	want := "SOCKET=ADDR"
	if addrFirst {
		want = "ADDR=SOCKET"
	}
	fs.Func(name, usage, func(v string) error {
		a, b, ok := strings.Cut(v, "=")
		if !ok || a == "" || b == "" {
			return fmt.Errorf("want %s, got %q", want, v)
		}
		if addrFirst {
			a, b = b, a
		}
		*into = append(*into, rig.BridgePair{Socket: a, Addr: b})
		return nil
	})
}
