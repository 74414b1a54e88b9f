package rig

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/mcplab/mcplab/lab/pipe"
)

// longServer answers every line it reads with one line of n bytes,
// written at once.
func longServer(n int) func(ctx context.Context, in io.Reader, out, log io.Writer) error {
	line := append(bytes.Repeat([]byte("x"), n-1), '\n')
	return func(ctx context.Context, in io.Reader, out, log io.Writer) error {
		buf := make([]byte, 4096)
		for {
			k, err := in.Read(buf)
			if bytes.IndexByte(buf[:k], '\n') >= 0 {
				if _, werr := out.Write(line); werr != nil {
					return werr
				}
			}
			if err != nil {
				return nil
			}
		}
	}
}

// readReads reads n bytes from r and lists the size of every read.
func readReads(r io.Reader, n int) ([]int, []byte, error) {
	var reads []int
	var got []byte
	buf := make([]byte, 64<<10)
	for len(got) < n {
		k, err := r.Read(buf)
		if k > 0 {
			reads = append(reads, k)
			got = append(got, buf[:k]...)
		}
		if err != nil {
			return reads, got, err
		}
	}
	return reads, got, nil
}

// The relay passes a long answer on to a pipe in pieces, each once the
// client has read the one before: no read of the 24 KiB line gets more
// than a page, however large the client's buffer.
func TestRelayPacesLongAnswer(t *testing.T) { testRelayPaces(t, 24<<10) }

// An answer longer than the relay's buffer reaches it in several reads
// from the socket; the pieces stay paced across them. The first piece of
// each read from the socket must wait, like every other, until the client
// has read the one before.
func TestRelayPacesAcrossSocketReads(t *testing.T) { testRelayPaces(t, 300<<10) }

func testRelayPaces(t *testing.T, size int) {
	r, err := Start(context.Background(), []Server{{Alias: "long", Stdio: longServer(size)}}, Options{Dir: shortDir(t), Relay: []string{"lab", "relay"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		err := Relay(ctx, configArg(t, r.Config()), inR, outW)
		outW.Close()
		done <- err
	}()
	go func() {
		io.WriteString(inW, "go\n")
		inW.Close()
	}()
	reads, got, err := readReads(outR, size)
	if err != nil {
		t.Fatalf("after %d bytes: %v", len(got), err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the relay: %v", err)
	}
	if len(got) != size || !bytes.Equal(got[:size-1], bytes.Repeat([]byte("x"), size-1)) || got[size-1] != '\n' {
		t.Fatalf("got %d bytes, want the %d-byte line", len(got), size)
	}
	for _, n := range reads {
		if n > pipe.PieceSize {
			t.Errorf("reads of %v bytes: one holds more than a piece (%d bytes)", reads, pipe.PieceSize)
			break
		}
	}
	if len(reads) < size/pipe.PieceSize {
		t.Errorf("reads of %v bytes, want at least %d", reads, size/pipe.PieceSize)
	}
}
