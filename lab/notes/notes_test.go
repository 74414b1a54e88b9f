package notes

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mcplab/mcplab/lab/mcpclient"
)

func TestLongNoteLength(t *testing.T) {
	if n := len(longNote()); n != LongNoteLength {
		t.Fatalf("the long note has %d characters, want %d", n, LongNoteLength)
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
