//go:build unix

package pipe

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// Over a pipe, each piece waits until the reader took the one before: every
// read of a long message returns at most one piece, so a client that splits
// each read on newlines gets half a message, every time.
func TestPiecesOverAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	msg := append(bytes.Repeat([]byte("x"), 3*PieceSize+100), '\n')
	go func() {
		// A generous bound: the wait ends when the reader has read, so it
		// only matters on a machine too busy to schedule the reader.
		(&Pieces{W: w, MaxWait: time.Minute}).Write(msg)
		w.Close()
	}()
	var reads []int
	var got []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			reads = append(reads, n)
			got = append(got, buf[:n]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("the bytes changed on the way")
	}
	if len(reads) != 4 || reads[0] != PieceSize {
		t.Errorf("reads of %v bytes; want four, the first %d", reads, PieceSize)
	}
}

// Over a socket pair, as a Node parent gives its child for stdout, the
// pieces wait for the reader too: every read returns at most one piece.
func TestPiecesOverASocket(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "reader"), os.NewFile(uintptr(fds[1]), "writer")
	defer r.Close()
	msg := append(bytes.Repeat([]byte("x"), 5*PieceSize+100), '\n')
	go func() {
		(&Pieces{W: w, MaxWait: time.Minute}).Write(msg)
		w.Close()
	}()
	var got []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > PieceSize {
			t.Errorf("one read returned %d bytes, more than a piece (%d)", n, PieceSize)
		}
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	if !bytes.Equal(got, msg) {
		t.Errorf("read %d bytes, want the %d written", len(got), len(msg))
	}
}
