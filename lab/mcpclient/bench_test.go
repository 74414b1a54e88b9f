package mcpclient_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcplab/mcplab/lab/mcpclient"
	"github.com/mcplab/mcplab/lab/tickets"
)

// benchCalls is how many tools/call round trips one timed run makes, one
// after the other; benchRounds runs of each client are timed, taking turns.
const (
	benchCalls  = 2000
	benchRounds = 3
)

// caller makes one tools/call of get_ticket and checks the answer.
type caller func(ctx context.Context) error

type peer struct {
	name string
	// open connects a fresh client; the returned func closes it.
	open func(b *testing.B) (caller, func())
}

// BenchmarkToolCallRoundTrips times sequential tools/call round trips to
// the lab's ticket system, over stdio (pipes to an in-process server) and
// over Streamable HTTP (a loopback server, event-stream answers), for the
// lab's reference client and go-sdk's client in the same run, and reports
// each rate and the lab's ratio to go-sdk. The goal is at least go-sdk's
// rate on both transports.
//
//	go test ./lab/mcpclient -run '^$' -bench ToolCallRoundTrips -benchtime 1x
func BenchmarkToolCallRoundTrips(b *testing.B) {
	srv := httptest.NewServer(tickets.Handler(nil))
	defer srv.Close()
	url := srv.URL + tickets.Path
	transports := []struct {
		name  string
		peers []peer
	}{
		{"stdio", []peer{{"lab", labStdio}, {"go-sdk", gosdkStdio}}},
		{"http", []peer{{"lab", labHTTP(url)}, {"go-sdk", gosdkHTTP(url)}}},
	}
	for b.Loop() {
		var table strings.Builder
		fmt.Fprintf(&table, "%d sequential tools/call round trips to the ticket system, best of %d runs:\n", benchCalls, benchRounds)
		for _, tr := range transports {
			best := map[string]time.Duration{}
			for round := range benchRounds {
				for i := range tr.peers {
					p := tr.peers[(i+round)%len(tr.peers)]
					took := timeCalls(b, p)
					if old, ok := best[p.name]; !ok || took < old {
						best[p.name] = took
					}
				}
			}
			rate := func(name string) float64 { return benchCalls / best[name].Seconds() }
			b.ReportMetric(rate("lab"), tr.name+"-lab-calls/s")
			b.ReportMetric(rate("go-sdk"), tr.name+"-gosdk-calls/s")
			b.ReportMetric(rate("lab")/rate("go-sdk"), tr.name+"-lab-vs-gosdk-x")
			fmt.Fprintf(&table, "  %-5s lab %8.0f calls/s, go-sdk %8.0f calls/s: the lab does %.2fx go-sdk's rate (goal >= 1)\n",
				tr.name, rate("lab"), rate("go-sdk"), rate("lab")/rate("go-sdk"))
		}
		b.Log(table.String())
	}
}

func timeCalls(b *testing.B, p peer) time.Duration {
	call, closeFn := p.open(b)
	defer closeFn()
	ctx := context.Background()
	if err := call(ctx); err != nil { // warm up: connections, discovery
		b.Fatalf("%s: %v", p.name, err)
	}
	start := time.Now()
	for range benchCalls {
		if err := call(ctx); err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
	}
	return time.Since(start)
}

const wantTicket = "T-104 (open): Nightly queue stalls; workers stop heartbeating"

// stdioPipes starts the ticket system's server core on stdio over OS pipes
// and returns the client's ends.
func stdioPipes(b *testing.B) (clientIn, clientOut *os.File, stop func()) {
	p := newPipes(b)
	serverIn, serverOut := p.serverIn, p.serverOut
	clientIn, clientOut = p.clientIn, p.clientOut
	done := make(chan struct{})
	go func() {
		defer close(done)
		tickets.New().ServeStdio(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	return clientIn, clientOut, func() {
		clientOut.Close()
		<-done
		clientIn.Close()
		serverIn.Close()
	}
}

func labCaller(c *mcpclient.Client) caller {
	args := map[string]string{"id": "T-104"}
	return func(ctx context.Context) error {
		r, err := c.CallTool(ctx, "get_ticket", args)
		if err != nil {
			return err
		}
		if r.Text() != wantTicket {
			return fmt.Errorf("got %q", r.Text())
		}
		return nil
	}
}

func labStdio(b *testing.B) (caller, func()) {
	in, out, stop := stdioPipes(b)
	c, err := mcpclient.Connect(context.Background(), mcpclient.Stream{R: in, W: out}, mcpclient.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return labCaller(c), func() { c.Close(); stop() }
}

func labHTTP(url string) func(b *testing.B) (caller, func()) {
	return func(b *testing.B) (caller, func()) {
		c, err := mcpclient.Connect(context.Background(), &mcpclient.HTTP{URL: url}, mcpclient.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return labCaller(c), func() { c.Close() }
	}
}

func gosdkCaller(cs *gosdk.ClientSession) caller {
	params := &gosdk.CallToolParams{Name: "get_ticket", Arguments: map[string]any{"id": "T-104"}}
	return func(ctx context.Context) error {
		r, err := cs.CallTool(ctx, params)
		if err != nil {
			return err
		}
		if len(r.Content) != 1 {
			return fmt.Errorf("got %d content blocks", len(r.Content))
		}
		if t, ok := r.Content[0].(*gosdk.TextContent); !ok || t.Text != wantTicket {
			return fmt.Errorf("got %#v", r.Content[0])
		}
		return nil
	}
}

func gosdkConnect(b *testing.B, t gosdk.Transport) *gosdk.ClientSession {
	client := gosdk.NewClient(&gosdk.Implementation{Name: "mcplab-bench", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatalf("go-sdk: connecting: %v", err)
	}
	return cs
}

func gosdkStdio(b *testing.B) (caller, func()) {
	in, out, stop := stdioPipes(b)
	cs := gosdkConnect(b, &gosdk.IOTransport{Reader: in, Writer: out})
	return gosdkCaller(cs), func() { cs.Close(); stop() }
}

func gosdkHTTP(url string) func(b *testing.B) (caller, func()) {
	return func(b *testing.B) (caller, func()) {
		cs := gosdkConnect(b, &gosdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1})
		return gosdkCaller(cs), func() { cs.Close() }
	}
}
