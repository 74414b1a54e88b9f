package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"
)

// pingCount is how many pings one timed run sends.
const pingCount = 20000

// benchRounds is how many times each server is timed per benchmark
// iteration; the best run counts.
const benchRounds = 3

// benchDeadline bounds one timed run, so a server that stops answering
// fails the benchmark instead of hanging it.
const benchDeadline = time.Minute

// BenchmarkPingRoundTrips times pingCount pipelined pings against each
// server over in-process pipes, after the handshake. The servers take turns,
// each round starting with the next one, so that noise on the machine hits
// all of them alike; the best of the rounds counts. It reports each server's
// pings per second and how many times the lab's throughput is the SDKs'.
func BenchmarkPingRoundTrips(b *testing.B) {
	ps := peers()
	payload := pingPayload(pingCount)
	best := make(map[string]time.Duration, len(ps))
	for b.Loop() {
		for round := range benchRounds {
			for i := range ps {
				p := ps[(i+round)%len(ps)]
				d, err := timePings(b, p, payload, pingCount)
				if err != nil {
					b.Fatalf("%s: %v", p.name, err)
				}
				if old, ok := best[p.name]; !ok || d < old {
					best[p.name] = d
				}
			}
		}
	}
	rate := func(name string) float64 { return pingCount / best[name].Seconds() }
	b.ReportMetric(rate("lab"), "lab-pings/s")
	b.ReportMetric(rate("go-sdk"), "gosdk-pings/s")
	b.ReportMetric(rate("mcp-go"), "mcpgo-pings/s")
	b.ReportMetric(rate("lab")/rate("go-sdk"), "lab-vs-gosdk-x")
	b.ReportMetric(rate("lab")/rate("mcp-go"), "lab-vs-mcpgo-x")
}

// pingPayload returns n ping requests with ids 1 to n, one per line, built
// before the clock starts so the client's own formatting is not timed.
func pingPayload(n int) []byte {
	var buf []byte
	for id := 1; id <= n; id++ {
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendInt(buf, int64(id), 10)
		buf = append(buf, `,"method":"ping"}`+"\n"...)
	}
	return buf
}

// timePings starts p's server, opens the session, then times how long the
// server takes to answer the n pings in payload. A writer goroutine sends the
// payload in 64 KiB writes, the size of a Linux pipe buffer, while a reader
// goroutine counts the answers and checks that each is a ping result. The
// server is stopped, and awaited, before timePings returns.
func timePings(tb testing.TB, p peer, payload []byte, n int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(tb.Context(), benchDeadline)
	defer cancel()
	s := start(tb, ctx, p)

	first := make(chan string, 1)
	counted := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(s.out, 64<<10)
		line, err := br.ReadString('\n')
		if err != nil {
			counted <- fmt.Errorf("reading the answer to initialize: %w", err)
			return
		}
		first <- line
		counted <- countPingAnswers(br, n)
		io.Copy(io.Discard, br) // keep the output flowing until the server stops
	}()

	if err := s.write(ctx, initializeLine); err != nil {
		return 0, fmt.Errorf("sending initialize: %w", err)
	}
	select {
	case answer := <-first:
		if err := checkInitializeAnswer(p.name, answer); err != nil {
			return 0, err
		}
	case err := <-counted:
		return 0, err
	case <-ctx.Done():
		return 0, fmt.Errorf("no answer to initialize: %w", ctx.Err())
	}
	if err := s.write(ctx, initializedLine); err != nil {
		return 0, fmt.Errorf("sending notifications/initialized: %w", err)
	}

	began := time.Now()
	wrote := make(chan error, 1)
	go func() {
		for rest := payload; len(rest) > 0; {
			chunk := rest[:min(len(rest), 64<<10)]
			if _, err := s.in.Write(chunk); err != nil {
				wrote <- fmt.Errorf("writing the pings: %w", err)
				return
			}
			rest = rest[len(chunk):]
		}
		wrote <- nil
	}()
	var took time.Duration
	select {
	case err := <-counted:
		took = time.Since(began)
		if err != nil {
			return 0, err
		}
	case <-ctx.Done():
		return 0, fmt.Errorf("the %d answers did not all come: %w", n, ctx.Err())
	}
	if err := <-wrote; err != nil { // every ping was answered, so every ping was written
		return 0, err
	}

	s.in.Close()
	select {
	case <-s.done:
	case <-ctx.Done():
		return 0, fmt.Errorf("the server kept running after its input ended: %w", ctx.Err())
	}
	return took, nil
}

// countPingAnswers reads n lines from br and checks that each is a ping's
// empty result.
func countPingAnswers(br *bufio.Reader, n int) error {
	for got := range n {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("after %d of %d answers: %w", got, n, err)
		}
		if !bytes.Contains(line, []byte(`"result":{}`)) {
			return fmt.Errorf("answer %d is %q, not a ping result", got+1, line)
		}
	}
	return nil
}
