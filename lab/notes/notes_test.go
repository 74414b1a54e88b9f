package notes

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcplab/mcplab/lab/mcpclient"
)

func TestLongNoteLength(t *testing.T) {
	if n := len(longNote()); n != LongNoteLength {
		t.Fatalf("the long note has %d characters, want %d", n, LongNoteLength)
	}
}

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

// The whole server through the reference client over pipes: three tools
// on two pages, the long note whole.
func TestServeThroughClient(t *testing.T) {
	clientIn, serverOut, _ := os.Pipe()
	serverIn, clientOut, _ := os.Pipe()
	done := make(chan error, 1)
	var log bytes.Buffer
	go func() {
		done <- Serve(context.Background(), serverIn, serverOut, &log)
		serverOut.Close()
	}()
	c, err := mcpclient.Connect(context.Background(), mcpclient.Stream{R: clientIn, W: clientOut}, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "search,read_note,add_note" {
		t.Errorf("tools %v", names)
	}
	r, err := c.CallTool(context.Background(), "read_note", map[string]string{"id": LongNoteID})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Text()); n != LongNoteLength || r.IsError {
		t.Errorf("the long note came back with %d characters", n)
	}
	r, err = c.CallTool(context.Background(), "search", map[string]string{"query": "Division by zero"})
	if err != nil || !strings.Contains(r.Text(), "divide-by-zero: Division by zero in the invoice totals") {
		t.Errorf("search: %v, %v", r, err)
	}
	r, err = c.CallTool(context.Background(), "read_note", map[string]string{"id": "nope"})
	if err != nil || !r.IsError {
		t.Errorf("an unknown note: %+v, %v", r, err)
	}
	c.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	clientIn.Close()
	serverIn.Close()
}
