//go:build unix

package sandbox_test

import (
	"context"
	"io"
	"testing"

	"github.com/mcplab/mcplab/lab/proc"
)

// A container's stdin is a pipe on the grader's kernel, so the grader
// knows to the byte what the program has not read: it read 3 bytes of 8
// (dd, one byte a read), said so, and 5 are left. Through the engine's
// attach stream it could not tell, and two chunks could join on the way.
func TestContainerStdinBacklog(t *testing.T) {
	t.Parallel()
	c := needEngine(t)
	p, err := c.Starter(shSpec(t, c, 15, `dd bs=1 count=3 of=/dev/null 2>/dev/null; echo read; exec sleep 300`)).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); p.Wait() }()
	b, ok := p.(proc.StdinBacklogger)
	if !ok {
		t.Fatal("the container sandbox's processes do not report their stdin backlog")
	}
	if _, err := io.WriteString(p.Stdin(), "abcdefgh"); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 5)
	if _, err := io.ReadFull(p.Stdout(), line); err != nil || string(line) != "read\n" {
		t.Fatalf("stdout %q, %v; want read", line, err)
	}
	if n, err := b.StdinBacklog(); n != 5 || err != nil {
		t.Errorf("StdinBacklog() = %d, %v; want 5", n, err)
	}
	// Closing stdin is end of input for the program.
	p2, err := c.Starter(shSpec(t, c, 15, `cat; echo eof`)).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(p2.Stdin(), "x\n")
	p2.Stdin().Close()
	out, _ := io.ReadAll(p2.Stdout())
	if exit := p2.Wait(); string(out) != "x\neof\n" || !exit.OK() {
		t.Errorf("after closing stdin: stdout %q, exit %+v; want x, eof, status 0", out, exit)
	}
	// Closed before the program has even opened it: still end of input,
	// not an open that waits for a writer for good.
	p3, err := c.Starter(shSpec(t, c, 15, `cat; echo eof`)).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p3.Stdin().Close()
	out, _ = io.ReadAll(p3.Stdout())
	if exit := p3.Wait(); string(out) != "eof\n" || !exit.OK() {
		t.Errorf("stdin closed at once: stdout %q, exit %+v; want eof, status 0", out, exit)
	}
}
