package notes

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/mcplab/mcplab/lab/txtar"
)

// TestCallAnswers plays the requests of testdata/calls.txtar, in order, on
// one connection and holds the answer lines to the file's exact bytes.
func TestCallAnswers(t *testing.T) {
	data, err := os.ReadFile("testdata/calls.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files, err := txtar.Files(data)
	if err != nil || len(files) != 2 || files[0].Name != "requests" || files[1].Name != "answers" {
		t.Fatalf("testdata/calls.txtar: want a requests and an answers section, got %d sections, %v", len(files), err)
	}
	conn := New(NewLibrary()).NewConn()
	var got bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSuffix(files[0].Data, []byte("\n")), []byte("\n")) {
		got.Write(conn.Answer(context.Background(), line).Line)
	}
	if want := string(files[1].Data); got.String() != want {
		t.Errorf("got\n%swant\n%s", got.String(), want)
	}
}
